/**
 * Splits a byte stream into lines. Chunks from a pipe split lines (and UTF-8 characters)
 * anywhere; a helper killed mid-line leaves a tail with no newline, which `end()` hands over
 * so the caller can report it as truncated rather than silently drop it.
 */
import { StringDecoder } from 'node:string_decoder';

/** A single line longer than this is not a protocol record; it is cut and reported. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private overflowed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (chars: number) => void = () => {},
  ) {}

  push(chunk: Buffer | string): void {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    let start = 0;
    for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
      const line = text.charCodeAt(nl - 1) === 13 ? text.slice(start, nl - 1) : text.slice(start, nl);
      if (this.overflowed) this.overflowed = false;
      else if (line.length > 0) this.onLine(line);
      start = nl + 1;
    }
    this.pending = text.slice(start);
    if (this.pending.length > MAX_LINE_CHARS) {
      this.onOverflow(this.pending.length);
      this.pending = '';
      this.overflowed = true;
    }
  }

  /** Returns the unterminated tail, if any (a line cut off by a crash or kill). */
  end(): string | undefined {
    const tail = (this.pending + this.decoder.end()).trim();
    this.pending = '';
    return tail.length > 0 && !this.overflowed ? tail : undefined;
  }
}
