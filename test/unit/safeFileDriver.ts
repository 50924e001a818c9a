/** The child side of safeFile.test.ts: one `readSafeFile` (or its sync form) of argv[2]'s `{file, kind, sync}`; prints the bytes read or the error, as JSON. */
import type { CappedKind } from '../../src/core/runs/safeFile';
import { readSafeFile, readSafeFileSync } from '../../src/core/runs/safeFile';

const req = JSON.parse(process.argv[2] ?? '{}') as { file: string; kind: CappedKind; sync?: boolean };
(req.sync ? Promise.resolve().then(() => readSafeFileSync(req.file, req.kind)) : readSafeFile(req.file, req.kind)).then(
  (bytes) => process.stdout.write(JSON.stringify({ ok: true, value: bytes.length })),
  (err: Error) => process.stdout.write(JSON.stringify({ ok: false, message: err.message, name: err.constructor.name })),
);
