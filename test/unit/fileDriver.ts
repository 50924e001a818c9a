/**
 * The child side of limitedChild.ts: one read through the product's own entry points, named by
 * the JSON request in argv[2]; prints `{ok, value}` or `{ok: false, message, name}` as JSON.
 * Bundled on its own, so it imports only what the runs folder code has always had.
 */
import { RunStore } from '../../src/core/runs/runStore';
import { loadTimeline, runTimeline } from '../../src/core/runs/timelineSource';

type Request =
  /** The run's own timeline, as Show Timeline finds and reads it. */
  | { action: 'run-timeline'; root: string; id: string }
  /** A timeline file of a run (a point's file, or the one the .sdmatl editor was opened on). */
  | { action: 'timeline-file'; root: string; id: string; file: string }
  | { action: 'open-run'; root: string; id: string }
  | { action: 'list'; root: string };

async function handle(req: Request): Promise<unknown> {
  const store = new RunStore(req.root);
  switch (req.action) {
    case 'run-timeline': {
      const run = await store.open(req.id);
      const location = runTimeline(run, store.dirOf(req.id));
      if (!location) return 'no timeline';
      return (await loadTimeline(run, location)).count;
    }
    case 'timeline-file':
      return (await loadTimeline(await store.open(req.id), { kind: 'file', file: req.file })).count;
    case 'open-run':
      return (await store.open(req.id)).header.id;
    case 'list':
      return (await store.list()).map((s) => ({ id: s.id, status: s.status, error: s.error }));
  }
}

handle(JSON.parse(process.argv[2] ?? '{}') as Request).then(
  (value) => process.stdout.write(JSON.stringify({ ok: true, value })),
  (err: Error) => process.stdout.write(JSON.stringify({ ok: false, message: err.message, name: err.constructor.name })),
);
