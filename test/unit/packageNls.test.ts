/**
 * Every string a user reads in the contributions (command titles, setting descriptions, the
 * view, its welcome, the walkthrough) comes from package.nls.json, so a translation is one
 * file: no key without a text, no text left inline, no text without a key that uses it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const nls = JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
const READ_BY_USERS = new Set([
  'title',
  'description',
  'markdownDescription',
  'deprecationMessage',
  'markdownDeprecationMessage',
  'enumDescriptions',
  'displayName',
  'name',
  'contents',
  'contextualTitle',
]);

/** [path, value] of every user-visible string field under `value`. */
function visible(value: unknown, path: string[] = []): [string, string][] {
  if (Array.isArray(value))
    return value.flatMap((v, i) =>
      typeof v === 'string' && READ_BY_USERS.has(path.at(-1) ?? '')
        ? [[[...path, String(i)].join('.'), v] as [string, string]]
        : visible(v, [...path, String(i)]),
    );
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      typeof v === 'string'
        ? READ_BY_USERS.has(k)
          ? [[[...path, k].join('.'), v] as [string, string]]
          : []
        : visible(v, [...path, k]),
    );
  }
  return [];
}

describe('package.nls.json', () => {
  const strings = [
    ...visible(pkg.contributes, ['contributes']),
    ['displayName', pkg.displayName as string],
    ['description', pkg.description as string],
  ] as [string, string][];

  it('every contributed text a user reads is a %key% of it', () => {
    const inline = strings.filter(([, v]) => !/^%[\w.-]+%$/.test(v));
    expect(inline).toEqual([]);
    expect(strings.length).toBeGreaterThan(60);
  });

  it('every key used has its text, and every text is used', () => {
    const used = new Set(
      strings.map(([, v]) => /^%([\w.-]+)%$/.exec(v)?.[1]).filter((k): k is string => k !== undefined),
    );
    expect([...used].filter((k) => typeof nls[k] !== 'string' || nls[k] === '')).toEqual([]);
    expect(Object.keys(nls).filter((k) => !used.has(k))).toEqual([]);
  });
});
