/** The one error of a run that wants the sandbox on a machine that cannot give it. */

export const SANDBOX_PACKAGE = 'bubblewrap';

export function sandboxUnavailableMessage(detail: string): string {
  return (
    `agents' commands run in a bubblewrap sandbox, but ${detail}. ` +
    `Install the Debian package ${SANDBOX_PACKAGE} (sudo apt-get install ${SANDBOX_PACKAGE}) on a kernel ` +
    'that allows user namespaces, or run with --sandbox off to run them uncontained, as your user ' +
    '(docs/sandbox.md)'
  );
}
