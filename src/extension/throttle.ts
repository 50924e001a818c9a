/** A panel's refresh while a run streams: at most one call per interval, or one now. */
export class Throttle {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly fn: () => void,
  ) {}

  /** Calls fn once the interval has passed, unless a call is already waiting. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.fn();
    }, this.intervalMs);
  }

  /** Drops a waiting call. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
