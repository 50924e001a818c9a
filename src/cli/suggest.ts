/** "Did you mean": the names nearest a mistyped command or flag. */

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const row = rows[i]!;
      const above = rows[i - 1]!;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The names meant by `word`, nearest first (at most three): those within two edits (and fewer
 * than half its letters, so a short word is not matched to anything), and those it begins
 * (`--sim` for `--sim-gpus`).
 */
export function nearest(word: string, names: readonly string[]): string[] {
  const typed = word.toLowerCase();
  const scored = names.flatMap((name) => {
    const d = editDistance(typed, name.toLowerCase());
    if (d <= 2 && d <= typed.length / 2) return [{ name, score: d }];
    if (typed.length >= 2 && name.toLowerCase().startsWith(typed)) return [{ name, score: 2.5 }];
    return [];
  });
  return scored
    .sort((a, b) => a.score - b.score)
    .slice(0, 3)
    .map((s) => s.name);
}

/** " (did you mean X?)", " (did you mean X or Y?)", or nothing; `shown` writes a name as the user types it (`--sizes`). */
export function didYouMean(
  word: string,
  names: readonly string[],
  shown: (name: string) => string = (name) => name,
): string {
  const near = nearest(word, names).map(shown);
  if (near.length === 0) return '';
  const listed = near.length === 1 ? near[0]! : `${near.slice(0, -1).join(', ')} or ${near.at(-1)!}`;
  return ` (did you mean ${listed}?)`;
}
