/**
 * The Content Security Policy of every OpenAgent webview: nothing remote, scripts and inline
 * styles only with the page's nonce, images/styles/fonts only from the extension (`source`).
 * Kept free of 'vscode' so the Chromium test pages load the bundles under the same policy.
 */
export function webviewCsp(source: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${source} data:`,
    `style-src ${source} 'nonce-${nonce}'`,
    `font-src ${source}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}
