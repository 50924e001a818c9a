"""The reference for `sdma-probe collective`: the same NCCL calls made through
torch.distributed, timed the way nccl-tests times them (host clock around back-to-back
calls, streams drained), with the same size and busbw definitions.

Run: torchrun --nproc_per_node=N bench/device/torch_collectives.py --sizes 1M,256M [--iters 20]
Prints one JSON object (rank 0) on stdout.
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1].upper()] if text[-1].upper() in units else int(text)


def timed(fn, warmup, iters):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    dist.barrier()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / iters * 1e6


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1M,16M,256M")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()

    rank = int(os.environ["RANK"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    n = dist.get_world_size()
    points = []
    for size in (parse_size(s) for s in args.sizes.split(",")):
        # Whole float32 elements per rank block, as sdma-probe rounds.
        size = size // (4 * n) * (4 * n)
        part = size // 4 // n
        gathered = torch.empty(part * n, dtype=torch.float32, device="cuda")
        mine = torch.full((part,), float(rank), dtype=torch.float32, device="cuda")
        send = torch.arange(part * n, dtype=torch.float32, device="cuda")
        recv = torch.empty_like(send)
        for op, fn in (
            ("allgather", lambda: dist.all_gather_into_tensor(gathered, mine)),
            ("alltoall", lambda: dist.all_to_all_single(recv, send)),
        ):
            t_us = timed(fn, args.warmup, args.iters)
            # The slowest rank's time is the collective's time.
            t = torch.tensor([t_us], dtype=torch.float64, device="cuda")
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            t_us = t.item()
            algbw = size / (t_us * 1e3)
            points.append({"op": op, "sizeBytes": size, "timeUs": t_us, "algbwGbps": algbw,
                           "busbwGbps": algbw * (n - 1) / n, "ranks": n})
        del gathered, mine, send, recv
    if rank == 0:
        version = torch.cuda.nccl.version()
        print(json.dumps({"torch": torch.__version__, "nccl": ".".join(map(str, version))
                          if isinstance(version, tuple) else str(version), "points": points}))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
