import assert from 'node:assert/strict';
import { webviewDocument } from '../../../src/host/chat/webview-document';

const page = {
  title: 'OpenAgent',
  cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
  nonce: 'n0nce',
  rootId: 'openagent-chat',
  script: 'document.body.dataset.ran = "yes";',
  stylesheet: 'body { color: red; }',
};

describe('the webview page', () => {
  it('carries its first script and stylesheet, nonce-tagged, under the CSP', () => {
    const html = webviewDocument({ ...page, laterScriptUrl: 'https://x/dist/webview/chat-conversation.js' });
    assert.match(
      html,
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none';[^"]*script-src 'nonce-n0nce'/,
    );
    assert.match(html, /<script type="module" nonce="n0nce">document\.body\.dataset\.ran = "yes";<\/script>/);
    assert.match(html, /<style nonce="n0nce">body \{ color: red; \}<\/style>/);
    assert.match(
      html,
      /<div id="openagent-chat" data-later-script="https:\/\/x\/dist\/webview\/chat-conversation\.js">/,
    );
    // Nothing is fetched before the first paint: no script or stylesheet by URL.
    assert.doesNotMatch(html, /<script[^>]* src=|<link/);
  });

  it('escapes what goes into attributes and the title', () => {
    const html = webviewDocument({ ...page, title: '<b>"x"', laterScriptUrl: 'https://x/a.js?"><script>' });
    assert.match(html, /<title>&lt;b&gt;&quot;x&quot;<\/title>/);
    assert.match(html, /data-later-script="https:\/\/x\/a\.js\?&quot;&gt;&lt;script&gt;"/);
  });

  it('refuses a script or stylesheet that would end its element early', () => {
    assert.throws(() => webviewDocument({ ...page, script: 'const s = "</SCRIPT><script>alert(1)";' }), /script/);
    assert.throws(() => webviewDocument({ ...page, stylesheet: 'a{}</style><script>alert(1)</script>' }), /style/);
  });
});
