/**
 * The HTML of an OpenAgent webview. Its first script and its stylesheet are written into the
 * page, so what the page shows first (the chat's composer) paints without fetching anything:
 * each fetch would go through the webview's service worker to the editor and back. A script
 * the page loads later is named on its root element (data-later-script). Kept free of 'vscode'
 * so the Chromium test pages are built the same way.
 */
import { webviewCsp } from './webview-csp';

export interface WebviewDocument {
  title: string;
  /** The webview's `cspSource`: where its images, styles and fonts may come from. */
  cspSource: string;
  nonce: string;
  /** The element the script mounts into. */
  rootId: string;
  /** The first script's code (an ES module) and the stylesheet's text. */
  script: string;
  stylesheet: string;
  /** The URL of the script the page imports after its first paint. */
  laterScriptUrl?: string;
  /** More for the head (the test pages' theme variables). */
  head?: string;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (character) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot' }[character]};`);

/** Text that would end the element it is written into (the build keeps `</script` out of bundles). */
function assertInlinable(text: string, element: 'script' | 'style'): string {
  if (text.toLowerCase().includes(`</${element}`)) throw new Error(`this ${element} cannot be written into a page`);
  return text;
}

export function webviewDocument(page: WebviewDocument): string {
  const { nonce } = page;
  const later = page.laterScriptUrl ? ` data-later-script="${escapeHtml(page.laterScriptUrl)}"` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${webviewCsp(page.cspSource, nonce)}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">${page.head ?? ''}
  <style nonce="${nonce}">${assertInlinable(page.stylesheet, 'style')}</style>
  <title>${escapeHtml(page.title)}</title>
</head>
<body>
  <div id="${escapeHtml(page.rootId)}"${later}></div>
  <script type="module" nonce="${nonce}">${assertInlinable(page.script, 'script')}</script>
</body>
</html>`;
}
