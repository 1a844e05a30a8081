/**
 * Small DOM helpers for the developer panel. Everything from the agent goes in as text
 * (textContent), never as HTML: tool output and model payloads are shown, not interpreted.
 */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  ...children: Array<Node | string | undefined>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) element.className = className;
  for (const child of children) if (child !== undefined) element.append(child);
  return element;
}

const bodies = new WeakMap<HTMLDetailsElement, () => Node[]>();

/**
 * A collapsible block whose body is built only when it is opened (a trace payload can be
 * megabytes), and rebuilt when its content changes while open.
 */
export function collapsible(className: string, summary: Node[], body: () => Node[]): HTMLDetailsElement {
  const details = el('details', className);
  details.append(el('summary', undefined, ...summary));
  bodies.set(details, body);
  details.addEventListener('toggle', () => {
    if (details.open) renderBody(details);
  });
  return details;
}

/** Replaces a collapsible's summary and body builder; an open one is redrawn at once. */
export function updateCollapsible(details: HTMLDetailsElement, summary: Node[], body: () => Node[]): void {
  details.querySelector(':scope > summary')?.replaceChildren(...summary);
  bodies.set(details, body);
  if (details.open) renderBody(details);
}

function renderBody(details: HTMLDetailsElement): void {
  const build = bodies.get(details);
  const body = el('div', 'collapsible-body', ...(build?.() ?? []));
  const old = details.querySelector(':scope > .collapsible-body');
  if (old) old.replaceWith(body);
  else details.append(body);
}

/** A preformatted block (JSON, tool output). */
export function pre(className: string, text: string): HTMLPreElement {
  const block = el('pre', className);
  block.textContent = text;
  return block;
}

export function badge(text: string, className = ''): HTMLSpanElement {
  return el('span', `badge ${className}`.trim(), text);
}

export function emptyNote(text: string): HTMLParagraphElement {
  return el('p', 'empty-note', text);
}
