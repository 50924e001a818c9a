/**
 * Splits a byte stream into lines. Chunks from a pipe split lines (and UTF-8 characters)
 * anywhere; a helper killed mid-line leaves a tail with no newline, which `end()` hands over
 * so the caller can report it as truncated rather than silently drop it.
 *
 * Linear in the input: only each new chunk is scanned for '\n', the pieces of an unfinished
 * line are kept as a list and joined once, when the line ends.
 */
import { StringDecoder } from 'node:string_decoder';

/** A single line longer than this is not a protocol record; it is cut and reported. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  /** The pieces of the line not yet ended, in order. */
  private parts: string[] = [];
  private pendingChars = 0;
  /** Set while the rest of an over-long line (already reported) is being dropped. */
  private overflowed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: (chars: number) => void = () => {},
  ) {}

  push(chunk: Buffer | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      if (this.overflowed) this.overflowed = false;
      else this.emit(this.take(text.slice(start, nl)));
      start = nl + 1;
    }
    if (start === text.length || this.overflowed) return;
    const rest = start === 0 ? text : text.slice(start);
    this.parts.push(rest);
    this.pendingChars += rest.length;
    if (this.pendingChars > MAX_LINE_CHARS) {
      this.onOverflow(this.pendingChars);
      this.parts = [];
      this.pendingChars = 0;
      this.overflowed = true;
    }
  }

  /** Returns the unterminated tail, if any (a line cut off by a crash or kill). */
  end(): string | undefined {
    const tail = (this.take('') + this.decoder.end()).trim();
    const dropping = this.overflowed;
    this.overflowed = false;
    return tail.length > 0 && !dropping ? tail : undefined;
  }

  /** The pending pieces and `last`, as one string; the pending list is emptied. */
  private take(last: string): string {
    if (this.parts.length === 0) return last;
    this.parts.push(last);
    const line = this.parts.join('');
    this.parts = [];
    this.pendingChars = 0;
    return line;
  }

  private emit(line: string): void {
    const text = line.charCodeAt(line.length - 1) === 13 ? line.slice(0, -1) : line;
    if (text.length > 0) this.onLine(text);
  }
}
