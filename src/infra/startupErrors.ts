/**
 * Start-up failures as an operator should see them: ONE line on stderr that names what to change,
 * never a stack trace (a WASM or driver stack tells an operator nothing). The full error stays
 * available with LOG_LEVEL=debug, for the cases we did not foresee.
 */
import { inspect } from 'node:util';
import { parse as parseConnectionString } from 'pg-connection-string';

/** An error whose message is written for the operator: printed as it is, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

const firstLine = (text: string): string =>
  text
    .split('\n')
    .find((line) => line.trim())
    ?.trim() ?? '';

const errorCode = (error: unknown): string | undefined => (error as { code?: unknown } | null)?.code as string | undefined;

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Which variable an operator changes to move a listener, so the message can name it. */
export interface ListenTarget {
  host: string;
  port: number;
  variable: 'PORT' | 'CHECKOUT_PORT';
}

/** Turns the listen errors an operator can fix (busy port, privileged port, foreign address) into one line. */
export function listenStartupError(error: unknown, { host, port, variable }: ListenTarget): unknown {
  const cause = { cause: error };
  switch (errorCode(error)) {
    case 'EADDRINUSE':
      return new StartupError(`port ${port} is already in use (set ${variable} to another port)`, cause);
    case 'EACCES':
      return new StartupError(`not allowed to listen on port ${port} (set ${variable} to a port above 1023)`, cause);
    case 'EADDRNOTAVAIL':
      return new StartupError(`cannot listen on ${host}: not an address of this machine (set HOST to one of its addresses, or 0.0.0.0)`, cause);
    default:
      return error;
  }
}

/** `PostgreSQL at host:port`, from the URL's parts: never the URL itself, which may hold a password. */
function describeServer(url: string): { where: string; host: string; port: string; database: string; user: string } {
  const parts = parseConnectionString(url);
  const host = parts.host || 'localhost';
  const port = parts.port || '5432';
  return { where: `PostgreSQL at ${host}:${port}`, host, port, database: parts.database ?? '', user: parts.user ?? '' };
}

/**
 * Turns a failed first connection into one line naming the server (or database) and what to do.
 * Called with whatever the driver threw while connecting, so every outcome is a StartupError.
 */
export function postgresStartupError(error: unknown, url: string, connectTimeoutMs: number, variable = 'DATABASE_URL'): StartupError {
  const { where, host, port, database, user } = describeServer(url);
  const message = firstLine(errorMessage(error));
  const cause = { cause: error };
  switch (errorCode(error)) {
    case 'ECONNREFUSED':
      return new StartupError(`cannot reach ${where} (connection refused): start PostgreSQL, or correct the host and port in ${variable}`, cause);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(`cannot resolve the host of ${where}: correct the host in ${variable}`, cause);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new StartupError(`cannot reach ${where} (${errorCode(error)}): check that it is running and reachable, or correct ${variable}`, cause);
    case '3D000':
      return new StartupError(
        `database "${database}" does not exist on ${where}: create it (createdb -h ${host} -p ${port}${user ? ` -U ${user}` : ''} ${database}) or name an existing database in ${variable}`,
        cause,
      );
    case '28P01':
      return new StartupError(`${where} rejected the password of user "${user}": correct the user or password in ${variable}`, cause);
    case '28000':
      return new StartupError(`${where} refused the connection (${message}): correct the user in ${variable}, or allow it in pg_hba.conf`, cause);
    case '57P03':
      return new StartupError(`${where} is not accepting connections yet (${message}): try again once it has started`, cause);
  }
  if (/timeout/i.test(message)) {
    return new StartupError(
      `${where} did not answer within ${connectTimeoutMs / 1000} s: check that it is running and reachable, or correct ${variable}`,
      cause,
    );
  }
  return new StartupError(`cannot connect to ${where} (${message}): check ${variable}`, cause);
}

export interface FailureReportOptions {
  /** LOG_LEVEL is debug or trace: the full error follows the line. */
  debug: boolean;
  /** Strings that must never be printed (the database password, the operator token). */
  secrets: string[];
}

/** What a failed start prints on stderr: one line, plus the whole error when debugging. */
export function startupFailureReport(error: unknown, { debug, secrets }: FailureReportOptions): string {
  const summary =
    error instanceof StartupError
      ? error.message
      : `failed to start: ${firstLine(errorMessage(error)) || 'unknown error'}${debug ? '' : ' (set LOG_LEVEL=debug to see the details)'}`;
  // A StartupError's own stack says nothing; what it translated (its cause) may.
  const detailed = error instanceof StartupError ? error.cause : error;
  const details = debug && detailed !== undefined ? `${inspect(detailed, { depth: 5 })}\n` : '';
  return redact(`gateway: ${summary}\n${details}`, secrets);
}

function redact(text: string, secrets: string[]): string {
  return secrets.filter((secret) => secret.length >= 4).reduce((result, secret) => result.split(secret).join('***'), text);
}

/** The password of a PostgreSQL URL, so that a failure report can hide it wherever a driver echoed it. */
export function passwordOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return parseConnectionString(url).password || undefined;
  } catch {
    return undefined;
  }
}
