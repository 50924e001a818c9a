import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, makeNonce, panelHtml } from '../../src/core/pages/webviewHtml';

const options = {
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  scriptUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/sweep.js',
  styleUri: 'https://file+.vscode-resource.vscode-cdn.net/ext/dist/webview/sweep.css',
  nonce: 'abcDEF0123456789abcDEF0123456789',
  title: 'Transfer sweep demo',
};

function cspOf(html: string): string {
  const match = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  if (!match?.[1]) throw new Error('no CSP meta tag');
  return match[1];
}

describe('panelHtml', () => {
  it('ships the strict CSP: nothing by default, no inline code, no eval', () => {
    const csp = cspOf(panelHtml(options));
    expect(csp).toBe(
      `default-src 'none'; img-src ${options.cspSource} data:; style-src ${options.cspSource} 'nonce-${options.nonce}'; ` +
        `font-src ${options.cspSource}; script-src 'nonce-${options.nonce}';`,
    );
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).not.toMatch(/\*/);
  });

  it('loads the bundle as a module carrying the same nonce as the CSP', () => {
    const html = panelHtml(options);
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toEqual([`<script type="module" nonce="${options.nonce}" src="${options.scriptUri}">`]);
    expect(cspOf(html)).toContain(`script-src 'nonce-${options.nonce}'`);
  });

  it('links the stylesheet and has no inline style or script body', () => {
    const html = panelHtml(options);
    expect(html).toContain(`<link rel="stylesheet" href="${options.styleUri}">`);
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).toMatch(/<script[^>]*><\/script>/);
    expect(html).toContain('<div id="root"></div>');
  });

  it('escapes the title, so a run id cannot inject markup', () => {
    const html = panelHtml({ ...options, title: `Sweep <img src=x onerror="alert(1)"> & 'co'` });
    expect(html).toContain("<title>Sweep &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; 'co'</title>");
    expect(html).not.toContain('<img');
  });

  it('escapes attribute values too', () => {
    const html = panelHtml({ ...options, scriptUri: 'https://x/"><script>alert(1)</script>' });
    expect(html.match(/<script\b/g)).toHaveLength(1);
  });

  it('matches the CSP helper', () => {
    expect(cspOf(panelHtml(options))).toBe(contentSecurityPolicy(options.cspSource, options.nonce));
  });
});

describe('makeNonce', () => {
  it('is 32 base64 characters and differs every time', () => {
    const nonces = new Set(Array.from({ length: 100 }, makeNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(nonce).toMatch(/^[A-Za-z0-9+/]{32}$/);
  });
});
