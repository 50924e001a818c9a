// Stands in for VS Code's webview host inside the preview page. Loaded before the panel's
// bundle by a nonce'd <script src>, so the page runs under the panel's exact CSP.
// `THEMES` and `REPLAY` are prepended by preview.mjs.
/* global THEMES, REPLAY, window, document, location, console, URLSearchParams, structuredClone, setTimeout */
(() => {
  const posted = [];
  const cspViolations = [];
  let state;
  let acquired = false;

  document.addEventListener('securitypolicyviolation', (e) => {
    const what = `${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile || '?'}:${e.lineNumber}`;
    cspViolations.push(what);
    console.error(`CSP violation: ${what}`);
  });

  // VS Code sets the theme's variables on <html> through the CSSOM, which the CSP allows.
  function setTheme(name) {
    const theme = THEMES[name];
    const html = document.documentElement;
    for (const property of [...html.style]) if (property.startsWith('--vscode-')) html.style.removeProperty(property);
    for (const [property, value] of Object.entries(theme.variables)) html.style.setProperty(property, value);
    if (document.body) {
      document.body.className = theme.bodyClass;
      document.body.dataset.vscodeThemeKind = theme.bodyClass;
    }
  }

  const initial = new URLSearchParams(location.search).get('theme') ?? 'dark';
  setTheme(initial);

  window.__preview = { posted, cspViolations, setTheme, state: () => state };

  window.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi may only be called once');
    acquired = true;
    return Object.freeze({
      postMessage: (message) => {
        posted.push(structuredClone(message));
        // A host-held timeline's queries go to the harness, which plays the host (holdOnHost).
        if (message?.type === 'engine-query' && typeof window.__hostRelay === 'function')
          void window.__hostRelay(message);
        // Like the extension: answer 'ready' with the run, streamed.
        if (message?.type === 'ready') REPLAY.forEach((m, i) => setTimeout(() => window.postMessage(m, '*'), 200 * i));
      },
      getState: () => state,
      setState: (next) => {
        state = structuredClone(next);
        return next;
      },
    });
  };
})();
