/**
 * An error the CLI reports as one plain line and an exit code, without a stack: the user gave something that
 * cannot work (a missing file, a module without tools), so a trace would only hide the message.
 */
export class CliError extends Error {
  /** The process exit code: 2 for usage and configuration problems, 1 for runtime failures. */
  readonly exitCode: number;

  constructor(message: string, exitCode = 2, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
