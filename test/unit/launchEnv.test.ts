import { parseTree, findNodeAtLocation } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { diagnoseAssignments } from '../../src/core/advice/diagnose';
import { applyTextEdits, findAssignments, replacementEdits, setJsonEnv } from '../../src/core/advice/envFiles';
import { LAUNCH_ENV, launchEntries, setLaunchEnv } from '../../src/core/advice/launchEnv';

/** A launch.json as users keep it: comments, trailing commas, mixed debuggers, a compound. */
const USER_LAUNCH = `{
    // Use IntelliSense to learn about possible attributes.
    "version": "0.2.0",
    "configurations": [
        {
            "name": "(gdb) train",
            "type": "cppdbg",
            "request": "launch",
            "program": "\${workspaceFolder}/build/train",
            "args": ["--steps", "10"],
            "cwd": "\${workspaceFolder}",
            "environment": [
                { "name": "LD_LIBRARY_PATH", "value": "/opt/rocm/lib" }, // ROCm first
                { "name": "NCCL_GIN_TYPE", "value": "5" },
            ],
            "MIMode": "gdb",
        },
        {
            "name": "CUDA: kernel",
            "type": "cuda-gdb",
            "request": "launch",
            "program": "\${workspaceFolder}/build/kernel",
        },
        {
            "name": "(lldb) bench",
            "type": "lldb",
            "request": "launch",
            "program": "\${workspaceFolder}/build/bench",
            "env": { "OMP_NUM_THREADS": "8" },
        },
        {
            "name": "plot",
            "type": "debugpy",
            "request": "launch",
            "program": "plot.py",
        },
        /* a debugger SDMA Lens has no table entry for */
        { "name": "gdb-native", "type": "gdb", "request": "launch", "target": "./train" },
    ],
    "compounds": [
        { "name": "all", "configurations": ["(gdb) train", "(lldb) bench"], },
    ],
}
`;

/** The one edit, checked to lie inside [from, to) of the original text: everything else stays byte-identical. */
function editWithin(before: string, after: string, from: number, to: number): void {
  const edits = replacementEdits(before, after);
  expect(edits).toHaveLength(1);
  const e = edits[0]!;
  expect(e.offset).toBeGreaterThanOrEqual(from);
  expect(e.offset + e.length).toBeLessThanOrEqual(to);
  expect(applyTextEdits(before, edits)).toBe(after);
  expect(after.slice(0, from)).toBe(before.slice(0, from));
  expect(after.slice(after.length - (before.length - to))).toBe(before.slice(to));
}

function span(text: string, path: (string | number)[]): [number, number] {
  const node = findNodeAtLocation(parseTree(text)!, path)!;
  return [node.offset, node.offset + node.length];
}

describe("launch configurations in each debugger's own format", () => {
  it('knows the shape of every debugger in the table, and no other', () => {
    expect(Object.fromEntries(Object.entries(LAUNCH_ENV).map(([t, e]) => [t, `${e.key}:${e.shape}`]))).toEqual({
      cppdbg: 'environment:list',
      cppvsdbg: 'environment:list',
      'cuda-gdb': 'environment:list',
      lldb: 'env:object',
      python: 'env:object',
      debugpy: 'env:object',
      node: 'env:object',
    });
    expect(launchEntries(USER_LAUNCH).map((e) => [e.name, e.type, e.env?.shape])).toEqual([
      ['(gdb) train', 'cppdbg', 'list'],
      ['CUDA: kernel', 'cuda-gdb', 'list'],
      ['(lldb) bench', 'lldb', 'object'],
      ['plot', 'debugpy', 'object'],
      ['gdb-native', 'gdb', undefined],
    ]);
  });

  it('replaces a variable in a cppdbg environment list in place and appends the new one, keeping the others', () => {
    const out = setLaunchEnv(USER_LAUNCH, '(gdb) train', { NCCL_GIN_TYPE: '7', NCCL_GIN_ENABLE: '1' });
    expect(out.written).toBe(true);
    expect(out.description).toMatch(
      /2 settings written into "environment" of launch configuration "\(gdb\) train" \(cppdbg\)/,
    );
    editWithin(USER_LAUNCH, out.text, ...span(USER_LAUNCH, ['configurations', 0, 'environment']));
    expect(out.text).toContain('{ "name": "LD_LIBRARY_PATH", "value": "/opt/rocm/lib" }, // ROCm first');
    expect(out.text).toContain('{ "name": "NCCL_GIN_TYPE", "value": "7" },');
    const env = findNodeAtLocation(parseTree(out.text)!, ['configurations', 0, 'environment'])!;
    expect(
      env.children!.map((c) => [findNodeAtLocation(c, ['name'])!.value, findNodeAtLocation(c, ['value'])!.value]),
    ).toEqual([
      ['LD_LIBRARY_PATH', '/opt/rocm/lib'],
      ['NCCL_GIN_TYPE', '7'],
      ['NCCL_GIN_ENABLE', '1'],
    ]);
    // No `env` object appears in a cppdbg configuration: the C/C++ debugger would ignore it.
    expect(findNodeAtLocation(parseTree(out.text)!, ['configurations', 0, 'env'])).toBeUndefined();
    // Again with the same values: nothing to do.
    expect(setLaunchEnv(out.text, '(gdb) train', { NCCL_GIN_TYPE: '7', NCCL_GIN_ENABLE: '1' }).text).toBe(out.text);
  });

  it('creates the environment list of a cuda-gdb configuration that has none, indented like the file', () => {
    const out = setLaunchEnv(USER_LAUNCH, 'CUDA: kernel', { NCCL_GIN_ENABLE: '1' });
    const [from, to] = span(USER_LAUNCH, ['configurations', 1]);
    editWithin(USER_LAUNCH, out.text, from, to);
    expect(out.text).toContain(
      '            "program": "${workspaceFolder}/build/kernel",\n            "environment": [\n                { "name": "NCCL_GIN_ENABLE", "value": "1" }\n            ],\n        },',
    );
    expect(findAssignments(out.text, 'launch').filter((a) => a.name === 'NCCL_GIN_ENABLE')).toHaveLength(1);
  });

  it('writes an env object for lldb and debugpy, merged with what is there', () => {
    const lldb = setLaunchEnv(USER_LAUNCH, '(lldb) bench', { NCCL_GIN_TYPE: '7' });
    editWithin(USER_LAUNCH, lldb.text, ...span(USER_LAUNCH, ['configurations', 2, 'env']));
    expect(findNodeAtLocation(parseTree(lldb.text)!, ['configurations', 2, 'env'])).toMatchObject({ type: 'object' });
    expect(
      JSON.stringify(
        findNodeAtLocation(parseTree(lldb.text)!, ['configurations', 2, 'env'])!.children!.map((p) =>
          p.children!.map((c) => c.value),
        ),
      ),
    ).toBe('[["OMP_NUM_THREADS","8"],["NCCL_GIN_TYPE","7"]]');
    const py = setLaunchEnv(lldb.text, 'plot', { NCCL_GIN_TYPE: '7' });
    editWithin(lldb.text, py.text, ...span(lldb.text, ['configurations', 3]));
    expect(findNodeAtLocation(parseTree(py.text)!, ['configurations', 3, 'env', 'NCCL_GIN_TYPE'])?.value).toBe('7');
  });

  it('writes nothing into a debugger it does not know, and says so', () => {
    const out = setLaunchEnv(USER_LAUNCH, 'gdb-native', { NCCL_GIN_TYPE: '7' });
    expect(out).toMatchObject({ written: false, text: USER_LAUNCH });
    expect(out.description).toMatch(
      /"gdb-native" has debugger type "gdb".*nothing was written\. Set NCCL_GIN_TYPE=7 there yourself/,
    );
    expect(setJsonEnv(USER_LAUNCH, 'launch', 'gdb-native', { NCCL_GIN_TYPE: '7' })).toEqual([]);
    const untyped = '{ "configurations": [ { "name": "x", "request": "launch" } ] }';
    expect(setLaunchEnv(untyped, 'x', { A: '1' })).toMatchObject({
      written: false,
      text: untyped,
      description: expect.stringMatching(/has no debugger type/),
    });
  });

  it('refuses an environment of the wrong shape rather than replacing it', () => {
    const text = '{ "configurations": [ { "name": "x", "type": "cppdbg", "environment": { "A": "1" } } ] }';
    expect(setLaunchEnv(text, 'x', { NCCL_GIN_TYPE: '7' })).toMatchObject({
      written: false,
      text,
      description: expect.stringMatching(/"environment" .* is not a list/),
    });
  });

  it('adds a new cppdbg configuration with an environment list, leaving the compound alone', () => {
    const out = setLaunchEnv(USER_LAUNCH, 'SDMA Lens', { NCCL_GIN_TYPE: '7' });
    expect(out.written).toBe(true);
    const root = parseTree(out.text)!;
    expect(findNodeAtLocation(root, ['configurations', 5, 'type'])?.value).toBe('cppdbg');
    expect(findNodeAtLocation(root, ['configurations', 5, 'environment', 0, 'value'])?.value).toBe('7');
    expect(out.text.slice(out.text.indexOf('"compounds"'))).toBe(USER_LAUNCH.slice(USER_LAUNCH.indexOf('"compounds"')));
    expect(launchEntries(out.text).map((e) => e.name)).not.toContain('all');
    const fresh = setLaunchEnv('', 'SDMA Lens', { NCCL_GIN_ENABLE: '1' });
    expect(JSON.parse(fresh.text)).toMatchObject({
      version: '0.2.0',
      configurations: [{ name: 'SDMA Lens', type: 'cppdbg', environment: [{ name: 'NCCL_GIN_ENABLE', value: '1' }] }],
    });
  });

  it('keeps tabs and CRLF line ends of the file, and one-line configurations on one line', () => {
    const text =
      '{\r\n\t"version": "0.2.0",\r\n\t"configurations": [\r\n\t\t{\r\n\t\t\t"name": "t",\r\n\t\t\t"type": "cppdbg"\r\n\t\t},\r\n\t\t{ "name": "one", "type": "cppdbg" }\r\n\t]\r\n}\r\n';
    const out = setLaunchEnv(text, 't', { NCCL_GIN_ENABLE: '1', NCCL_GIN_TYPE: '7' }).text;
    expect(out).not.toMatch(/[^\r]\n/);
    expect(out).toContain(
      '\t\t\t"type": "cppdbg",\r\n\t\t\t"environment": [\r\n\t\t\t\t{ "name": "NCCL_GIN_ENABLE", "value": "1" },\r\n\t\t\t\t{ "name": "NCCL_GIN_TYPE", "value": "7" }\r\n\t\t\t]\r\n\t\t},',
    );
    const one = setLaunchEnv(out, 'one', { NCCL_GIN_ENABLE: '1' }).text;
    expect(one).toContain(
      '\t\t{ "name": "one", "type": "cppdbg", "environment": [ { "name": "NCCL_GIN_ENABLE", "value": "1" } ] }\r\n',
    );
    const added = setLaunchEnv(one, 'SDMA Lens', { NCCL_GIN_ENABLE: '1' }).text;
    expect(added).not.toMatch(/[^\r]\n/);
    expect(added).toContain('\t\t{\r\n\t\t\t"name": "SDMA Lens",\r\n\t\t\t"type": "cppdbg",');
    expect(findAssignments(added, 'launch')).toHaveLength(4);
  });

  it('reads knobs from environment lists and env objects with ranges on the value nodes', () => {
    const found = findAssignments(USER_LAUNCH, 'launch');
    expect(found.map((a) => [a.name, a.value])).toEqual([
      ['LD_LIBRARY_PATH', '/opt/rocm/lib'],
      ['NCCL_GIN_TYPE', '5'],
      ['OMP_NUM_THREADS', '8'],
    ]);
    for (const a of found) expect(USER_LAUNCH.slice(a.valueStart - 1, a.valueEnd + 1)).toBe(`"${a.value}"`);
    // Reordered keys and a number value still land on the value.
    const odd =
      '{ "configurations": [ { "type": "cuda-gdb", "environment": [ { "value": 256, "name": "ROCSHMEM_SDMA_THRESHOLD" }, { "name": "NOVALUE" }, "junk" ] } ] }';
    const [t] = findAssignments(odd, 'launch');
    expect(t).toMatchObject({ name: 'ROCSHMEM_SDMA_THRESHOLD', value: '256' });
    expect(odd.slice(t!.valueStart, t!.valueEnd)).toBe('256');
  });

  it('diagnoses a knob in a cppdbg environment entry, the warning and its fix on the value', () => {
    const problems = diagnoseAssignments(findAssignments(USER_LAUNCH, 'launch'), { rccl: '2.31.0' });
    expect(problems).toHaveLength(1);
    const [p] = problems;
    expect(p).toMatchObject({ severity: 'warning', fix: '7', assignment: { name: 'NCCL_GIN_TYPE', value: '5' } });
    expect(p!.message).toMatch(/selects EFA GDA .* Anvil SDMA is 7/);
    const { valueStart, valueEnd } = p!.assignment;
    expect(USER_LAUNCH.slice(valueStart, valueEnd)).toBe('5');
    expect(USER_LAUNCH.slice(valueStart - 10, valueEnd + 1)).toBe('"value": "5"');
    // The quick fix replaces exactly that range and the warning goes.
    const fixed = applyTextEdits(USER_LAUNCH, [{ offset: valueStart, length: valueEnd - valueStart, text: p!.fix! }]);
    expect(diagnoseAssignments(findAssignments(fixed, 'launch'), { rccl: '2.31.0' })).toEqual([]);
  });
});
