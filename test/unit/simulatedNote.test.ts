/**
 * Suggest Settings on a simulated run: every knob file format that takes comments says the
 * values are the simulated node's, not a measurement (.env, shell, launch.json and tasks.json
 * as JSONC); the file still reads back, and a second write does not repeat the note.
 */
import { parse, type ParseError } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import {
  applyTextEdits,
  findAssignments,
  setJsonEnv,
  setLineVariables,
  simulatedNote,
} from '../../src/core/advice/envFiles';
import { setLaunchEnv } from '../../src/core/advice/launchEnv';

const note = simulatedNote('2026-11-30T01-02-03-456Z-sweep-sim-k3f9');
const COMMENT =
  '# SDMA Lens: these values come from run 2026-11-30T01-02-03-456Z-sweep-sim-k3f9 on the simulated MI350X node, not from a measurement; measure on the real node before relying on them.';

function jsoncErrors(text: string): ParseError[] {
  const errors: ParseError[] = [];
  parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  return errors;
}

describe('values from a simulated run say so in the file', () => {
  it('.env and shell files get a # line above the values written, once', () => {
    const out = applyTextEdits(
      'A=1\n',
      setLineVariables('A=1\n', { NCCL_GIN_TYPE: '7', NCCL_GIN_ENABLE: '1' }, 'dotenv', note),
    );
    expect(out).toBe(`A=1\n${COMMENT}\nNCCL_GIN_TYPE=7\nNCCL_GIN_ENABLE=1\n`);
    expect(findAssignments(out, 'dotenv').map((a) => [a.name, a.value])).toEqual([
      ['A', '1'],
      ['NCCL_GIN_TYPE', '7'],
      ['NCCL_GIN_ENABLE', '1'],
    ]);
    // Written again with another value: replaced in place, the note not repeated.
    const again = applyTextEdits(out, setLineVariables(out, { NCCL_GIN_TYPE: '6' }, 'dotenv', note));
    expect(again).toBe(`A=1\n${COMMENT}\nNCCL_GIN_TYPE=6\nNCCL_GIN_ENABLE=1\n`);
    // Only replacements in a file without the note: the note goes above the first line changed.
    const replaced = applyTextEdits(
      'X=1\nNCCL_GIN_TYPE=5\n',
      setLineVariables('X=1\nNCCL_GIN_TYPE=5\n', { NCCL_GIN_TYPE: '7' }, 'dotenv', note),
    );
    expect(replaced).toBe(`X=1\n${COMMENT}\nNCCL_GIN_TYPE=7\n`);
    expect(applyTextEdits('', setLineVariables('', { Y: '2' }, 'shell', note))).toBe(`${COMMENT}\nexport Y=2\n`);
    // Nothing to change: no edit at all, note included.
    expect(setLineVariables(replaced, { NCCL_GIN_TYPE: '7' }, 'dotenv', note)).toEqual([]);
    // A measured run's values get no note.
    expect(applyTextEdits('', setLineVariables('', { Y: '2' }, 'dotenv'))).toBe('Y=2\n');
  });

  it('launch.json gets a // line above the environment it writes, and stays valid JSONC', () => {
    const text =
      '{\n  "version": "0.2.0",\n  "configurations": [\n    {\n      "name": "train",\n      "type": "cppdbg",\n      "environment": [\n        { "name": "A", "value": "1" }\n      ]\n    }\n  ]\n}\n';
    const out = setLaunchEnv(text, 'train', { NCCL_GIN_TYPE: '7' }, note).text;
    expect(out).toContain(`      // ${COMMENT.slice(2)}\n      "environment": [`);
    expect(jsoncErrors(out)).toEqual([]);
    expect(findAssignments(out, 'launch').map((a) => [a.name, a.value])).toEqual([
      ['A', '1'],
      ['NCCL_GIN_TYPE', '7'],
    ]);
    const again = setLaunchEnv(out, 'train', { NCCL_GIN_TYPE: '6' }, note).text;
    expect(again.split(COMMENT.slice(2)).length).toBe(2);
    // A new configuration and an empty file.
    const fresh = setLaunchEnv('', 'SDMA Lens', { NCCL_GIN_TYPE: '7' }, note).text;
    expect(fresh).toMatch(
      /\/\/ SDMA Lens: these values come from run .* simulated MI350X node, not from a measurement.*\n\s+"environment": \[/,
    );
    expect(jsoncErrors(fresh)).toEqual([]);
    // No note, no comment.
    expect(setLaunchEnv(text, 'train', { NCCL_GIN_TYPE: '7' }).text).not.toContain('//');
  });

  it("tasks.json gets it above the task's options", () => {
    const out = applyTextEdits('', setJsonEnv('', 'tasks', 'SDMA Lens', { NCCL_GIN_TYPE: '7' }, note));
    expect(out).toMatch(/\n(\s+)\/\/ SDMA Lens: these values come from run [^\n]*\n\1"options": \{/);
    expect(jsoncErrors(out)).toEqual([]);
    expect(findAssignments(out, 'tasks').map((a) => [a.name, a.value])).toEqual([['NCCL_GIN_TYPE', '7']]);
  });
});
