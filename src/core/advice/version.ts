/** Library versions as dotted numbers ("2.31.0", "2.28.9+hip6.4") and half-open ranges over them. */

export interface VersionRange {
  /** Inclusive; null: no lower bound known. */
  from: string | null;
  /** Exclusive; null: open. */
  before: string | null;
}

/** Parses the leading dotted numbers of a version string; undefined if there are none. */
export function parseVersion(text: string): number[] | undefined {
  const m = /^\s*v?(\d+(?:\.\d+)*)/.exec(text);
  return m ? m[1]!.split('.').map(Number) : undefined;
}

export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a) ?? [];
  const y = parseVersion(b) ?? [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export function inRange(version: string, range: VersionRange): boolean {
  if (range.from !== null && compareVersions(version, range.from) < 0) return false;
  if (range.before !== null && compareVersions(version, range.before) >= 0) return false;
  return true;
}

export function describeRange(range: VersionRange): string {
  if (range.from === null && range.before === null) return 'all versions';
  if (range.from === null) return `before ${range.before}`;
  if (range.before === null) return `${range.from} and later`;
  return `${range.from} up to (not including) ${range.before}`;
}
