/**
 * Maps kernel names as the helper prints them back to the kernels detected in the sources.
 * The helper demangles every dispatch's name with the C++ runtime's demangler
 * (`demangle` in native/src/profile/records.cpp; the original is the record's `mangled`), so a
 * name here is a demangled signature: a return type (templates), namespaces, template
 * arguments and parameters around the function's name. Only that `name` is matched.
 */
import type { KernelSite } from './detect';

/** How detect.ts qualifies a kernel inside `namespace { ... }`. */
const ANONYMOUS = '(anonymous)';

/**
 * `void ns::k<float, 4>(float*, int)` -> `ns::k`. An unnamed namespace, which demanglers print
 * `(anonymous namespace)`, comes back as detect.ts names it: `(anonymous)::k`.
 */
export function baseName(printed: string): string {
  const text = printed.trim();
  if (text.startsWith('_Z')) return stillMangledName(text);
  let head = text.slice(0, parameterListStart(text)).trim();
  // Drop template arguments at the end of the name: "k<float, 4>".
  while (head.endsWith('>')) head = head.slice(0, Math.max(0, openingOf(head, head.length - 1))).trim();
  return afterReturnType(head).replaceAll('(anonymous namespace)', ANONYMOUS);
}

/**
 * Where the parameter list starts: the last top-level "(...)" after a name; the end of the text
 * when there is none (`(anonymous namespace)::k`, as a user may type it, has no parameters).
 */
function parameterListStart(text: string): number {
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === ')') depth++;
    else if (c === '(' && --depth === 0) return i > 0 && text[i - 1] !== ':' ? i : text.length;
  }
  return text.length;
}

/** The index of the `<` that the `>` at `close` closes (-1 when unbalanced). */
function openingOf(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    if (text[i] === '>') depth++;
    else if (text[i] === '<' && --depth === 0) return i;
  }
  return -1;
}

/** The name after a return type: what follows the last space outside brackets, so "(anonymous namespace)" stays whole. */
function afterReturnType(head: string): string {
  let depth = 0;
  for (let i = head.length - 1; i >= 0; i--) {
    const c = head[i]!;
    if (c === ')' || c === '>' || c === '}') depth++;
    else if (c === '(' || c === '<' || c === '{') depth--;
    else if (depth === 0 && /\s/.test(c)) return head.slice(i + 1);
  }
  return head;
}

/**
 * A name that is still mangled: one the C++ runtime could not demangle (the helper then keeps
 * the raw name), or a run file from a helper that did not demangle. This is not a demangler:
 * it reads only the length-prefixed identifiers at the start (`_Z6simplePf` -> `simple`,
 * `_ZN4sdma6detail1kEPi` -> `sdma::detail::k`, an `L` for internal linkage skipped, nvcc's and
 * g++'s `_GLOBAL__N_...` read as the unnamed namespace) and stops at anything else (template
 * arguments, substitutions, parameters), which a `__global__` name does not need. A name with
 * no such identifier is returned as it is and matches only itself.
 */
function stillMangledName(mangled: string): string {
  const nested = mangled[2] === 'N';
  let i = nested ? 3 : 2;
  if (mangled[i] === 'L') i++;
  const parts: string[] = [];
  while (parts.length === 0 || nested) {
    const length = /^[1-9]\d*/.exec(mangled.slice(i))?.[0];
    if (!length || i + length.length + Number(length) > mangled.length) break;
    i += length.length;
    const id = mangled.slice(i, i + Number(length));
    parts.push(id.startsWith('_GLOBAL__N') ? ANONYMOUS : id);
    i += id.length;
  }
  return parts.length > 0 ? parts.join('::') : mangled;
}

export type KernelMatch =
  { kind: 'unique'; site: KernelSite } | { kind: 'ambiguous'; sites: KernelSite[] } | { kind: 'none' };

/** Finds the detected kernel a printed name refers to; several candidates are reported as ambiguous. */
export function matchKernel(printed: string, sites: readonly KernelSite[]): KernelMatch {
  const name = baseName(printed);
  const exact = sites.filter((s) => s.qualifiedName === name);
  if (exact.length === 1) return { kind: 'unique', site: exact[0]! };
  const short = name.split('::').at(-1)!;
  const candidates =
    exact.length > 1
      ? exact
      : sites.filter(
          (s) =>
            s.name === short && (name === short || s.qualifiedName.endsWith(`::${short}`) || s.qualifiedName === short),
        );
  const definitions = candidates.filter((s) => s.isDefinition);
  const pool = definitions.length > 0 ? definitions : candidates;
  if (pool.length === 1) return { kind: 'unique', site: pool[0]! };
  if (pool.length > 1) return { kind: 'ambiguous', sites: pool };
  return { kind: 'none' };
}
