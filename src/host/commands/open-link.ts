import * as vscode from 'vscode';

/** Links in model output open only after the user confirms, and only web or mail links. */
export async function openLinkWithConfirmation(href: string): Promise<void> {
  let uri: vscode.Uri;
  try {
    uri = vscode.Uri.parse(href, true);
  } catch {
    return;
  }
  if (!['http', 'https', 'mailto'].includes(uri.scheme)) {
    void vscode.window.showWarningMessage(`OpenAgent did not open a link with the "${uri.scheme}:" scheme.`);
    return;
  }
  const open = 'Open Link';
  const answer = await vscode.window.showInformationMessage(
    `Open this link from the chat?\n${uri.toString(true)}`,
    { modal: true },
    open,
  );
  if (answer === open) await vscode.env.openExternal(uri);
}
