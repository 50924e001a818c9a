/**
 * Every message the extension shows goes through vscode.l10n.t with a literal English key, and
 * l10n/bundle.l10n.json holds exactly those keys, so a translation is one more file beside it
 * (bundle.l10n.<locale>.json). The sources are read with the TypeScript compiler, not matched
 * with patterns; each check also runs on a small wrong source, so it is seen to fail.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM script of the repository, without type declarations
import { BUNDLE_FILE, SOURCE_DIR, bundleDiff, extractBundle, sourceFiles } from '../../scripts/l10n.mjs';

const root = join(__dirname, '..', '..');
type Bundle = Record<string, string | { message: string; comment: string[] }>;
const committed = JSON.parse(readFileSync(BUNDLE_FILE as string, 'utf8')) as Bundle;
const sources = (sourceFiles as (dir: string) => string[])(SOURCE_DIR as string).map((file) => ({
  name: relative(root, file),
  text: readFileSync(file, 'utf8'),
}));
const extract = extractBundle as (dir?: string) => Promise<Bundle>;
const diff = bundleDiff as (
  extracted: Bundle,
  committed: Bundle,
) => { missing: string[]; stale: string[]; changed: string[] };

interface Source {
  name: string;
  text: string;
}

function parse({ name, text }: Source): ts.SourceFile {
  return ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function where(sf: ts.SourceFile, node: ts.Node): string {
  return `${sf.fileName}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
}

function walk(node: ts.Node, visit: (n: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

/** `vscode.l10n` itself. */
function isL10n(node: ts.Node): node is ts.PropertyAccessExpression {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'l10n' &&
    ts.isIdentifier(node.expression) &&
    node.expression.text === 'vscode'
  );
}

/** `vscode.l10n.t`, the one way the extractor (and VS Code's lookup) knows. */
function isT(node: ts.Node): boolean {
  return ts.isPropertyAccessExpression(node) && node.name.text === 't' && isL10n(node.expression);
}

const isLiteral = (node: ts.Node): node is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral =>
  ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);

function property(object: ts.ObjectLiteralExpression, name: string): ts.Expression | undefined {
  for (const p of object.properties)
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name)
      return p.initializer;
  return undefined;
}

interface TCall {
  at: string;
  /** The key VS Code looks up: the message, or `message/comment` in the object form. */
  key?: string;
  message?: string;
  /** The arguments after the message; undefined when they cannot be counted (a spread, a non-literal `args`). */
  args?: ts.Expression[];
  /** Named arguments (one object literal), by name. */
  named?: string[];
  problem?: string;
}

/** Every use of vscode.l10n in a file: its calls of `t`, read, or what is wrong with the use. */
function l10nUses(source: Source): TCall[] {
  const sf = parse(source);
  const uses: TCall[] = [];
  walk(sf, (node) => {
    if (!isL10n(node)) return;
    const t = node.parent;
    const call = t.parent;
    if (!isT(t) || !call || !ts.isCallExpression(call) || call.expression !== t) {
      uses.push({
        at: where(sf, node),
        problem: `vscode.l10n used other than as vscode.l10n.t(...): ${node.parent.getText(sf).slice(0, 80)}`,
      });
      return;
    }
    uses.push(readCall(sf, call));
  });
  return uses;
}

function readCall(sf: ts.SourceFile, call: ts.CallExpression): TCall {
  const at = where(sf, call);
  const [first, ...rest] = call.arguments;
  const text = call.getText(sf).slice(0, 100);
  if (first && isLiteral(first)) return { at, key: first.text, message: first.text, ...positional(rest) };
  if (first && ts.isObjectLiteralExpression(first)) {
    const message = property(first, 'message');
    const comment = property(first, 'comment');
    if (!message || !isLiteral(message)) return { at, problem: `the message is not a string literal: ${text}` };
    const comments =
      comment && ts.isArrayLiteralExpression(comment) && comment.elements.every(isLiteral)
        ? comment.elements.map((e) => (e as ts.StringLiteral).text)
        : comment && isLiteral(comment)
          ? [comment.text]
          : undefined;
    // The extractor reads the object form only with a literal comment (and VS Code keys it so).
    if (!comments) return { at, problem: `the object form needs a literal comment: ${text}` };
    const args = property(first, 'args');
    const read =
      args === undefined
        ? { args: [] }
        : ts.isArrayLiteralExpression(args)
          ? positional([...args.elements])
          : ts.isObjectLiteralExpression(args)
            ? positional([args])
            : {};
    return { at, key: `${message.text}/${comments.join('')}`, message: message.text, ...read };
  }
  return {
    at,
    problem: `the first argument is not a string literal (a template with \${}, a variable or a + concatenation): ${text}`,
  };
}

function positional(args: ts.Expression[]): Pick<TCall, 'args' | 'named'> {
  if (args.some(ts.isSpreadElement)) return {};
  const only = args.length === 1 ? args[0] : undefined;
  if (only && ts.isObjectLiteralExpression(only)) {
    const names = only.properties.map((p) =>
      p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined,
    );
    if (names.every((n): n is string => n !== undefined)) return { args, named: names };
  }
  return { args };
}

/** Where the placeholders of a call's message and its arguments disagree. */
function placeholderProblems(call: TCall): string[] {
  if (call.message === undefined) return [];
  const indices = [...call.message.matchAll(/\{(\d+)\}/g)].map((m) => Number(m[1]));
  const names = [...call.message.matchAll(/\{([A-Za-z_]\w*)\}/g)].map((m) => m[1]!);
  if (call.args === undefined)
    return indices.length + names.length > 0
      ? [`${call.at}: the arguments of "${call.message}" cannot be counted (a spread or a computed args)`]
      : [];
  if (call.named) {
    const missing = names.filter((n) => !call.named!.includes(n));
    const unused = call.named.filter((n) => !names.includes(n));
    return missing.length + unused.length + indices.length > 0
      ? [`${call.at}: "${call.message}" names {${names.join('}, {')}} but is given ${call.named.join(', ')}`]
      : [];
  }
  const count = call.args.length;
  const wanted = indices.length === 0 ? 0 : Math.max(...indices) + 1;
  const gaps = Array.from({ length: wanted }, (_, i) => i).filter((i) => !indices.includes(i));
  if (names.length > 0) return [`${call.at}: "${call.message}" has named placeholders but positional arguments`];
  if (count !== wanted || gaps.length > 0)
    return [
      `${call.at}: "${call.message}" has placeholders {0}..{${wanted - 1}}${gaps.length ? ` (without {${gaps.join('}, {')}})` : ''} but ${count} argument${count === 1 ? '' : 's'}`,
    ];
  return [];
}

const SHOW = new Set(['showInformationMessage', 'showWarningMessage', 'showErrorMessage']);

/** A text typed in place: a string or template literal, or one inside a conditional, array, spread, parentheses or + concatenation. */
function typedText(node: ts.Node): boolean {
  if (isLiteral(node) || ts.isTemplateExpression(node)) return true;
  if (ts.isParenthesizedExpression(node) || ts.isSpreadElement(node)) return typedText(node.expression);
  if (ts.isConditionalExpression(node)) return typedText(node.whenTrue) || typedText(node.whenFalse);
  if (ts.isArrayLiteralExpression(node)) return node.elements.some(typedText);
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken)
    return typedText(node.left) || typedText(node.right);
  return false;
}

/** The show*Message calls of a file, and file:line of every one handed text typed in place (its message or a button), or of the function taken as a value. */
function showMessages(source: Source): { calls: number; offenders: string[] } {
  const sf = parse(source);
  const offenders: string[] = [];
  let calls = 0;
  walk(sf, (node) => {
    if (!ts.isPropertyAccessExpression(node) || !SHOW.has(node.name.text)) return;
    const call = node.parent;
    if (!ts.isCallExpression(call) || call.expression !== node) {
      offenders.push(`${where(sf, node)}: ${node.name.text} taken as a value (a call through it escapes this check)`);
      return;
    }
    calls++;
    if (call.arguments.some(typedText)) offenders.push(`${where(sf, call)}: ${call.getText(sf).slice(0, 100)}`);
  });
  return { calls, offenders };
}

const calls = sources.flatMap(l10nUses);

describe('l10n/bundle.l10n.json', () => {
  it('equals what @vscode/l10n-dev extracts from src/extension now', async () => {
    const extracted = await extract();
    expect(diff(extracted, committed)).toEqual({ missing: [], stale: [], changed: [] });
    expect(committed).toEqual(extracted);
    expect(Object.keys(committed).length).toBeGreaterThan(200);
    // l10n-dev parses every source file of the extension: 2-18 s on two cores, longer while other
    // test files run beside it, so vitest's 5 s default cut it off on a loaded machine.
  }, 120_000);

  it('has exactly the keys of the vscode.l10n.t calls the compiler finds (none the extractor would miss)', () => {
    const keys = new Set(calls.flatMap((c) => (c.key === undefined ? [] : [c.key])));
    expect([...keys].filter((k) => !(k in committed))).toEqual([]);
    expect(Object.keys(committed).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('the stale-bundle comparison names what is missing, stale and changed', () => {
    const now: Bundle = {
      'SDMA Lens: kept': 'SDMA Lens: kept',
      'SDMA Lens: new {0}': 'SDMA Lens: new {0}',
      'a/b': { message: 'a', comment: ['b'] },
    };
    const old: Bundle = {
      'SDMA Lens: kept': 'SDMA Lens: kept',
      'SDMA Lens: gone': 'SDMA Lens: gone',
      'a/b': { message: 'a', comment: ['c'] },
    };
    expect(diff(now, old)).toEqual({ missing: ['SDMA Lens: new {0}'], stale: ['SDMA Lens: gone'], changed: ['a/b'] });
  });
});

describe('vscode.l10n.t in src/extension', () => {
  it('is called in every file that shows a message, and only with a literal key', () => {
    expect(calls.length).toBeGreaterThan(250);
    expect(calls.filter((c) => c.problem).map((c) => `${c.at}: ${c.problem}`)).toEqual([]);
  });

  it('refuses a template with ${}, a variable, a concatenation, an uncommented object and a use that is no call', () => {
    const bad = {
      name: 'bad.ts',
      text: [
        "import * as vscode from 'vscode';",
        'vscode.l10n.t(`deleted ${n} runs`);',
        'vscode.l10n.t(message);',
        "vscode.l10n.t('deleted ' + n + ' runs');",
        "vscode.l10n.t({ message: 'deleted {0} runs', args: [n] });",
        'const t = vscode.l10n.t;',
        "vscode.l10n.t('Deleted {0} runs.', n);",
      ].join('\n'),
    };
    expect(l10nUses(bad).map((c) => (c.problem ? c.at : 'ok'))).toEqual([
      'bad.ts:2',
      'bad.ts:3',
      'bad.ts:4',
      'bad.ts:5',
      'bad.ts:6',
      'ok',
    ]);
  });

  it('gives every {n} placeholder its argument, and no argument without a placeholder', () => {
    expect(calls.flatMap(placeholderProblems)).toEqual([]);
  });

  it('the placeholder check fails on a missing, an extra, a skipped and an uncountable argument', () => {
    const bad = {
      name: 'bad.ts',
      text: [
        "import * as vscode from 'vscode';",
        "vscode.l10n.t('{0} of {1} runs', done);",
        "vscode.l10n.t('no runs', n);",
        "vscode.l10n.t('{0} and {2}', a, b, c);",
        "vscode.l10n.t('{0} runs', ...counts);",
        "vscode.l10n.t({ message: 'the {0} and {1}', args: [what], comment: ['{0} is what ran'] });",
        "vscode.l10n.t('{n} runs', { m: 1 });",
        "vscode.l10n.t('{0} of {1} runs', done, total);",
        "vscode.l10n.t('{n} runs', { n: 1 });",
      ].join('\n'),
    };
    expect(l10nUses(bad).map((c) => (placeholderProblems(c).length > 0 ? c.at : 'ok'))).toEqual([
      'bad.ts:2',
      'bad.ts:3',
      'bad.ts:4',
      'bad.ts:5',
      'bad.ts:6',
      'bad.ts:7',
      'ok',
      'ok',
    ]);
  });
});

describe('show*Message in src/extension', () => {
  it('is never handed a text typed in place: message and buttons come from vscode.l10n.t or from the core', () => {
    const seen = sources.map(showMessages);
    expect(seen.reduce((n, s) => n + s.calls, 0)).toBeGreaterThan(40);
    expect(seen.flatMap((s) => s.offenders)).toEqual([]);
  });

  it('the check lists file:line of a literal, a template, a literal button, a concatenation and an alias', () => {
    const bad = {
      name: 'bad.ts',
      text: [
        "import * as vscode from 'vscode';",
        "void vscode.window.showInformationMessage('SDMA Lens: done.');",
        'void vscode.window.showErrorMessage(`SDMA Lens: ${message}`);',
        "void vscode.window.showWarningMessage(vscode.l10n.t('SDMA Lens: {0}', m), 'Show Log');",
        "void vscode.window.showWarningMessage('SDMA Lens: ' + m);",
        'const say = vscode.window.showInformationMessage;',
        "void vscode.window.showWarningMessage(vscode.l10n.t('SDMA Lens: {0}', m), ...(noted ? ['Show Log'] : []));",
        "void vscode.window.showInformationMessage(vscode.l10n.t('SDMA Lens: {0}', m), showLog);",
        'void vscode.window.showErrorMessage(endSentence(run, what), { modal: true });',
      ].join('\n'),
    };
    expect(showMessages(bad).offenders.map((o) => o.split(': ')[0])).toEqual([
      'bad.ts:2',
      'bad.ts:3',
      'bad.ts:4',
      'bad.ts:5',
      'bad.ts:6',
      'bad.ts:7',
    ]);
  });
});

describe('the bundle ships', () => {
  it('package.json names the l10n folder, and the .vscodeignore allowlist lets it into the VSIX', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { l10n?: string };
    expect(pkg.l10n).toBe('./l10n');
    const lines = readFileSync(join(root, '.vscodeignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    // An allowlist: "**" excludes everything, a later "!pattern" adds it back, a still later plain pattern would drop it again.
    expect(lines[0]).toBe('**');
    const added = lines.findIndex((l) => /^!l10n\/(\*\*|\*\.json|bundle\.l10n\*\.json)$/.test(l));
    expect(added, '.vscodeignore adds !l10n/**').toBeGreaterThan(0);
    expect(lines.slice(added + 1).filter((l) => !l.startsWith('!') && /(^|\/)l10n\b|^\*\*\/\*\.json$/.test(l))).toEqual(
      [],
    );
  });
});
