/** The API's answer as it is, for scripts: what every command prints with --json. */
export function printJson(body: unknown, out: NodeJS.WritableStream): number {
  out.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}
