// Watches, from inside the workbench, for the moment a webview view's input can take typing
// (issue 23: click-to-composer): OpenAgent's chat composer, and the textarea of the bare webview
// view the bench times beside it (test/fixtures/extensions/bare-webview-view). Added with
// Playwright's addInitScript, it runs in every frame the workbench creates and acts only in the
// outer frame of one of those webviews (VS Code's pre/index.html). The page is written into an
// inner frame of the same origin, which VS Code keeps hidden until the document has loaded, so
// only the outer frame sees what the user sees. On each animation frame it looks for the input,
// laid out and enabled, in the visible inner frame. The first frame that has it is the one that
// paints it ("painted"); the first task after that frame is when a keystroke would be handled
// ("ready"). It also keeps when the webview was created, when the page was written into it (the
// extension had activated and resolved the view) and when the chat's script arrived, to tell
// where time went. The times are epoch milliseconds (performance.timeOrigin + now), comparable
// across frames.
'use strict';
/* global URLSearchParams, location, performance, window, document, navigator, setTimeout, requestAnimationFrame */
(() => {
  const query = new URLSearchParams(location.search);
  const pages = {
    'openagent.openagent': {
      root: 'openagent-chat',
      input: (doc) => doc.querySelector('#openagent-chat #prompt')?.shadowRoot?.querySelector('textarea'),
    },
    'openagent-bench.bare-webview-view': {
      root: 'bare-webview',
      input: (doc) => doc.querySelector('#bare-webview textarea'),
    },
  };
  const extensionId = query.get('extensionId');
  const watched = pages[extensionId];
  if (!location.pathname.endsWith('/pre/index.html') || !watched || query.get('purpose') !== 'webviewView') return;
  if (window.__openagentComposer) return;
  const epoch = (now) => performance.timeOrigin + now;
  const watch = { extensionId, webviewCreated: performance.timeOrigin };
  window.__openagentComposer = watch;
  const deadline = performance.now() + 300_000;
  // VS Code's own start of the webview: its document, its service worker (which serves the
  // webview's resources), the frame it writes the page into.
  document.addEventListener('DOMContentLoaded', () => (watch.frameLoaded = epoch(performance.now())));
  navigator.serviceWorker?.ready.then(() => (watch.workerReady = epoch(performance.now())));

  const check = (frameTime) => {
    const pending = document.getElementById('pending-frame')?.contentDocument;
    if (!watch.pageFrameCreated && (pending || document.getElementById('active-frame')))
      watch.pageFrameCreated = epoch(frameTime);
    if (!watch.contentWritten && pending?.getElementById(watched.root)) watch.contentWritten = epoch(frameTime);
    const frame = document.getElementById('active-frame');
    const inner = frame && frame.style.visibility !== 'hidden' ? frame.contentWindow : null;
    const doc = inner && inner.document;
    if (!watch.contentWritten && doc?.getElementById(watched.root)) watch.contentWritten = epoch(frameTime);
    const input = doc && watched.input(doc);
    if (input && input.offsetHeight > 0 && !input.disabled) {
      watch.painted = epoch(frameTime);
      const script = inner.performance
        .getEntriesByType('resource')
        .find((entry) => /\/dist\/webview\/chat\.js(\?|$)/.test(entry.name));
      if (script) watch.scriptArrived = inner.performance.timeOrigin + script.responseEnd;
      setTimeout(() => (watch.ready = epoch(performance.now())), 0);
      return;
    }
    if (performance.now() < deadline) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})();
