/**
 * The HTML shell of the webview panels. Pure (no `vscode` import) so it is unit-tested and
 * reused by the browser harnesses and benchmarks with the exact CSP the extension ships.
 */
import { randomBytes } from 'node:crypto';

export interface PanelHtmlOptions {
  /** `webview.cspSource`: the origin local resources are served from. */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  nonce: string;
  title: string;
  /** Directives a panel needs beyond the strict base, each documented where it is asked for. */
  extraDirectives?: readonly string[];
}

/** 24 random bytes: 32 base64 characters, no padding. A fresh one for every render. */
export function makeNonce(): string {
  return randomBytes(24).toString('base64');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

/** Safe for text and for double-quoted attributes (every attribute below is double-quoted, so the CSP's quotes stay readable). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ESCAPES[c]!);
}

/** Scripts and styles only from the extension (styles also by nonce); no inline code, no eval. */
export function contentSecurityPolicy(
  cspSource: string,
  nonce: string,
  extraDirectives: readonly string[] = [],
): string {
  return (
    [
      "default-src 'none'",
      `img-src ${cspSource} data:`,
      `style-src ${cspSource} 'nonce-${nonce}'`,
      `font-src ${cspSource}`,
      `script-src 'nonce-${nonce}'`,
      ...extraDirectives,
    ].join('; ') + ';'
  );
}

export function panelHtml({ cspSource, scriptUri, styleUri, nonce, title, extraDirectives }: PanelHtmlOptions): string {
  const a = escapeHtml;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${a(contentSecurityPolicy(cspSource, nonce, extraDirectives))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${a(styleUri)}">
<title>${a(title)}</title>
</head>
<body>
<div id="root"></div>
<script type="module" nonce="${a(nonce)}" src="${a(scriptUri)}"></script>
</body>
</html>
`;
}
