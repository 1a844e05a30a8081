/**
 * A file OpenAgent could not use (a skill, an instruction file, a custom agent): the user is told
 * once per window, with "Open File" to go and fix it.
 */
import * as vscode from 'vscode';

export interface FileProblem {
  file: string;
  message: string;
}

/** `describe` turns a problem into the file to open and the warning's text. */
export function fileProblemNotices<Problem extends FileProblem>(
  describe: (problem: Problem) => { file: vscode.Uri; text: string },
): (problems: Problem[]) => void {
  const shown = new Set<string>();
  return (problems) => {
    for (const problem of problems) {
      const key = `${problem.file}\n${problem.message}`;
      if (shown.has(key)) continue;
      shown.add(key);
      const { file, text } = describe(problem);
      void vscode.window
        .showWarningMessage(text, 'Open File')
        .then((choice) => choice && vscode.window.showTextDocument(file));
    }
  };
}
