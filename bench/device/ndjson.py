"""Readers the summarize*.py scripts share: NDJSON files of the helper (lines that are not JSON
are skipped), the exit codes run-h200*.sh saved beside them, and torch_collectives.py's JSON."""
import json
import os


def read(path, kind=None):
    """The records of one NDJSON file, or only those of type `kind`; [] when it does not exist."""
    rows = []
    if os.path.exists(path):
        with open(path, errors="replace") as f:
            for line in f:
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                if kind is None or r.get("type") == kind:
                    rows.append(r)
    return rows


def raw_dir(raw):
    """`records(name)` and `rc(name)` of a raw folder: raw/NAME.ndjson and raw/NAME.rc."""
    def records(name):
        return read(os.path.join(raw, name + ".ndjson"))

    def rc(name):
        try:
            with open(os.path.join(raw, name + ".rc")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None
    return records, rc


def torch_reference(out):
    """torch.json of torch_collectives.py (its last line), {} when missing or unreadable."""
    try:
        with open(os.path.join(out, "torch.json")) as f:
            return json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return {}
