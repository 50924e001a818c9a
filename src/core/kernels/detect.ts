/**
 * Finds `__global__` kernels in C, C++, HIP and CUDA sources without a compiler: comments,
 * string and character literals, preprocessor directives and `#if 0` blocks are blanked
 * first (offsets kept), then each `__global__` is followed to the name whose parameter list
 * is followed by a body or a `;`. Namespaces are tracked so names come back qualified.
 */

export interface KernelSite {
  name: string;
  /** `ns::inner::name` for kernels inside namespaces. */
  qualifiedName: string;
  /** Offsets into the original text. */
  globalOffset: number;
  nameOffset: number;
  templated: boolean;
  /** The text inside `__launch_bounds__(...)`, when present. */
  launchBounds?: string;
  /** False for a declaration (`...);`). */
  isDefinition: boolean;
}

/** Replaces [start, end) with spaces, keeping newlines so line numbers do not move. */
function blank(chars: string[], start: number, end: number): void {
  for (let i = start; i < end; i++) if (chars[i] !== '\n') chars[i] = ' ';
}

/** Blanks comments, literals, directives and inactive `#if 0` regions. */
export function maskSource(text: string): string {
  // UTF-16 code units, so offsets match the editor's and the regular expressions' offsets.
  const chars = text.split('');
  const n = chars.length;
  let i = 0;
  let lineStart = true;
  const ifStack: { inactive: boolean }[] = [];
  let inactiveFrom = -1;
  const inactive = () => ifStack.some((f) => f.inactive);
  while (i < n) {
    const c = chars[i]!;
    const next = chars[i + 1];
    if (lineStart) {
      let j = i;
      while (j < n && (chars[j] === ' ' || chars[j] === '\t')) j++;
      if (chars[j] === '#') {
        // A directive runs to the end of the line, continued by backslashes.
        let end = j;
        while (end < n && !(chars[end] === '\n' && chars[end - 1] !== '\\')) end++;
        const directive = chars
          .slice(j + 1, end)
          .join('')
          .trim();
        const word = /^(\w+)/.exec(directive)?.[1] ?? '';
        const wasInactive = inactive();
        if (word === 'if' || word === 'ifdef' || word === 'ifndef') {
          const zero = word === 'if' && /^if\s+(0|false)\b/.test(directive);
          ifStack.push({ inactive: zero });
          if (!wasInactive && zero) inactiveFrom = end;
        } else if ((word === 'else' || word === 'elif') && ifStack.length > 0) {
          const top = ifStack[ifStack.length - 1]!;
          if (top.inactive) {
            top.inactive = false;
            if (!inactive() && inactiveFrom >= 0) {
              blank(chars, inactiveFrom, j);
              inactiveFrom = -1;
            }
          }
        } else if (word === 'endif' && ifStack.length > 0) {
          ifStack.pop();
          if (wasInactive && !inactive() && inactiveFrom >= 0) {
            blank(chars, inactiveFrom, j);
            inactiveFrom = -1;
          }
        }
        blank(chars, j, end);
        i = end;
        continue;
      }
      lineStart = false;
    }
    if (c === '\n') {
      lineStart = true;
      i++;
    } else if (c === '/' && next === '/') {
      let end = i;
      while (end < n && chars[end] !== '\n') end++;
      blank(chars, i, end);
      i = end;
    } else if (c === '/' && next === '*') {
      let end = i + 2;
      while (end < n && !(chars[end] === '*' && chars[end + 1] === '/')) end++;
      end = Math.min(n, end + 2);
      blank(chars, i, end);
      i = end;
    } else if (c === 'R' && next === '"' && !/\w/.test(chars[i - 1] ?? '')) {
      // Raw string R"delim( ... )delim"
      const open = chars.indexOf('(', i + 2);
      const delim = open === -1 ? '' : chars.slice(i + 2, open).join('');
      const close = open === -1 ? -1 : text.indexOf(`)${delim}"`, open);
      const end = close === -1 ? n : close + delim.length + 2;
      blank(chars, i, end);
      i = end;
    } else if (c === '"' || c === "'") {
      let end = i + 1;
      while (end < n && chars[end] !== c && chars[end] !== '\n') end += chars[end] === '\\' ? 2 : 1;
      end = Math.min(n, end + 1);
      // A quote inside a number (1'000'000) is a digit separator, not a literal.
      if (c === "'" && /[0-9a-fA-F]/.test(chars[i - 1] ?? '') && /[0-9a-fA-F]/.test(next ?? '')) {
        i++;
        continue;
      }
      blank(chars, i, end);
      i = end;
    } else {
      i++;
    }
  }
  if (inactiveFrom >= 0) blank(chars, inactiveFrom, n);
  return chars.join('');
}

const ATTRIBUTE_CALLS = new Set([
  '__launch_bounds__',
  '__attribute__',
  '__declspec',
  'alignas',
  'decltype',
  '__align__',
  'noexcept',
  'requires',
  'sizeof',
]);

interface Token {
  text: string;
  offset: number;
}

function tokenize(masked: string): Token[] {
  const tokens: Token[] = [];
  const re = /[A-Za-z_]\w*|::|[{}()<>;,]|\S/g;
  for (let m = re.exec(masked); m; m = re.exec(masked)) tokens.push({ text: m[0], offset: m.index });
  return tokens;
}

/** Index of the token closing the group opened at `open` (parens or braces), or -1. */
function closing(tokens: Token[], open: number): number {
  const o = tokens[open]!.text;
  const c = o === '(' ? ')' : o === '{' ? '}' : '>';
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i]!.text === o) depth++;
    else if (tokens[i]!.text === c && --depth === 0) return i;
  }
  return -1;
}

export function detectKernels(text: string): KernelSite[] {
  const masked = maskSource(text);
  if (!masked.includes('__global__')) return [];
  const tokens = tokenize(masked);
  const kernels: KernelSite[] = [];
  // Brace scopes: a namespace name, or null for any other block.
  const scopes: (string | null)[] = [];
  let pendingNamespace: string | null | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!.text;
    if (t === 'namespace') {
      // `namespace a::b {`, `namespace {` (anonymous), or `namespace x = y;`
      const parts: string[] = [];
      let j = i + 1;
      while (j < tokens.length && tokens[j]!.text !== '{' && tokens[j]!.text !== ';' && tokens[j]!.text !== '=') {
        if (/^\w+$/.test(tokens[j]!.text) && tokens[j]!.text !== 'inline') parts.push(tokens[j]!.text);
        j++;
      }
      pendingNamespace = tokens[j]?.text === '{' ? parts.join('::') || '(anonymous)' : undefined;
      continue;
    }
    if (t === '{') {
      scopes.push(pendingNamespace ?? null);
      pendingNamespace = undefined;
      continue;
    }
    if (t === '}') {
      scopes.pop();
      continue;
    }
    if (t !== '__global__') continue;
    const site = parseKernel(tokens, i, masked, text);
    if (!site) continue;
    const ns = scopes.filter((s): s is string => s !== null && s !== '(anonymous)');
    kernels.push({
      ...site,
      qualifiedName: [...ns, site.name].join('::'),
      templated: site.templated || isTemplated(tokens, i),
    });
  }
  return kernels;
}

/** True when `template <...>` comes right before the declaration that holds `__global__`. */
function isTemplated(tokens: Token[], globalIndex: number): boolean {
  for (let j = globalIndex - 1; j >= 0; j--) {
    const t = tokens[j]!.text;
    if (t === ';' || t === '{' || t === '}') return false;
    if (t === 'template') return true;
  }
  return false;
}

function parseKernel(
  tokens: Token[],
  globalIndex: number,
  masked: string,
  text: string,
): Omit<KernelSite, 'qualifiedName'> | undefined {
  let launchBounds: string | undefined;
  for (let i = globalIndex + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.text === ';' || t.text === '{' || t.text === '}') return undefined;
    if (t.text === '<') {
      // Template arguments in a return type (e.g. `Foo<int>`): skip them.
      const end = closing(tokens, i);
      if (end > i) i = end;
      continue;
    }
    if (!/^[A-Za-z_]\w*$/.test(t.text) || tokens[i + 1]?.text !== '(') continue;
    const close = closing(tokens, i + 1);
    if (close === -1) return undefined;
    if (ATTRIBUTE_CALLS.has(t.text) || /^[A-Z][A-Z0-9_]*$/.test(t.text)) {
      if (t.text === '__launch_bounds__')
        launchBounds = masked.slice(tokens[i + 1]!.offset + 1, tokens[close]!.offset).trim();
      i = close;
      continue;
    }
    // The name is the identifier whose parameter list is followed by a body or a `;`,
    // possibly after trailing attributes.
    let after = close + 1;
    while (
      after < tokens.length &&
      (tokens[after]!.text === '__attribute__' || tokens[after]!.text === 'noexcept' || tokens[after]!.text === 'const')
    ) {
      after = tokens[after + 1]?.text === '(' ? closing(tokens, after + 1) + 1 : after + 1;
    }
    const follow = tokens[after]?.text;
    if (follow !== '{' && follow !== ';') {
      i = close;
      continue;
    }
    return {
      name: text.slice(t.offset, t.offset + t.text.length),
      globalOffset: tokens[globalIndex]!.offset,
      nameOffset: t.offset,
      templated: false,
      ...(launchBounds !== undefined ? { launchBounds } : {}),
      isDefinition: follow === '{',
    };
  }
  return undefined;
}
