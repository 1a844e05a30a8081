/**
 * A link-styled button: an anchor that acts on click without following its `#` target or letting
 * the click reach the row under it (rows of the chat and the panel have their own click actions).
 */
export function linkButton(text: string, className: string, onClick: () => void): HTMLAnchorElement {
  const anchor = document.createElement('a');
  anchor.href = '#';
  anchor.className = className;
  anchor.textContent = text;
  anchor.setAttribute('role', 'button');
  anchor.addEventListener('click', (event) => {
    event.preventDefault();
    event.stopPropagation();
    onClick();
  });
  return anchor;
}
