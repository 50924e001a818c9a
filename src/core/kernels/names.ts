/**
 * Maps kernel names as profilers print them (demangled with return type, template
 * arguments and parameters, or still mangled) back to the kernels detected in the sources.
 */
import type { KernelSite } from './detect';

/** `void ns::k<float, 4>(float*, int)` -> `ns::k`; a mangled `_Z...` name is decoded for its qualified name. */
export function baseName(printed: string): string {
  const text = printed.trim();
  if (text.startsWith('_Z')) return demangledQualifiedName(text) ?? text;
  // Drop the parameter list: the last top-level "(...)".
  let depth = 0;
  let end = text.length;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i];
    if (c === ')') depth++;
    else if (c === '(' && --depth === 0) {
      end = i;
      break;
    }
  }
  let head = text.slice(0, end).trim();
  // Drop template arguments at the end of the name: "k<float, 4>".
  while (head.endsWith('>')) {
    let d = 0;
    let i = head.length - 1;
    for (; i >= 0; i--) {
      if (head[i] === '>') d++;
      else if (head[i] === '<' && --d === 0) break;
    }
    head = head.slice(0, Math.max(0, i)).trim();
  }
  // The name is the last whitespace-separated word (after the return type).
  return head.split(/\s+/).at(-1) ?? head;
}

/** Qualified name from an Itanium-mangled name: _Z + nested (N...E) or plain source names. */
function demangledQualifiedName(mangled: string): string | undefined {
  let i = 2;
  const parts: string[] = [];
  const readName = () => {
    const m = /^\d+/.exec(mangled.slice(i));
    if (!m) return false;
    const len = Number(m[0]);
    i += m[0].length;
    parts.push(mangled.slice(i, i + len));
    i += len;
    return true;
  };
  if (mangled[i] === 'N') {
    i++;
    while (i < mangled.length && mangled[i] !== 'E' && mangled[i] !== 'I') if (!readName()) break;
  } else {
    readName();
  }
  return parts.length > 0 ? parts.join('::') : undefined;
}

export type KernelMatch = { kind: 'unique'; site: KernelSite } | { kind: 'ambiguous'; sites: KernelSite[] } | { kind: 'none' };

/** Finds the detected kernel a printed name refers to; several candidates are reported as ambiguous. */
export function matchKernel(printed: string, sites: readonly KernelSite[]): KernelMatch {
  const name = baseName(printed);
  const exact = sites.filter((s) => s.qualifiedName === name);
  if (exact.length === 1) return { kind: 'unique', site: exact[0]! };
  const short = name.split('::').at(-1)!;
  const candidates = exact.length > 1 ? exact : sites.filter((s) => s.name === short && (name === short || s.qualifiedName.endsWith(`::${short}`) || s.qualifiedName === short));
  const definitions = candidates.filter((s) => s.isDefinition);
  const pool = definitions.length > 0 ? definitions : candidates;
  if (pool.length === 1) return { kind: 'unique', site: pool[0]! };
  if (pool.length > 1) return { kind: 'ambiguous', sites: pool };
  return { kind: 'none' };
}
