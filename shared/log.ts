/**
 * A small structured logger (JSON lines on stderr). Values under keys that look like
 * credentials are redacted, so keys and secrets never reach the logs.
 */
type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_KEY = /secret|password|authorization|api[-_]?key|token$|^key$/i;

let threshold: number = ORDER.info;

export function setLogLevel(level: Level): void {
  threshold = ORDER[level];
}

function redact(value: unknown, depth = 0): unknown {
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { name: value.name, message: value.message, ...('code' in value ? { code: value.code } : {}) };
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
  return out;
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = { level, time: new Date().toISOString(), msg, ...(fields ? (redact(fields) as object) : {}) };
  process.stderr.write(JSON.stringify(line) + '\n');
}

interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function logger(component: string): Logger {
  const f = (fields?: Record<string, unknown>) => ({ component, ...fields });
  return {
    debug: (m, x) => write('debug', m, f(x)),
    info: (m, x) => write('info', m, f(x)),
    warn: (m, x) => write('warn', m, f(x)),
    error: (m, x) => write('error', m, f(x)),
  };
}
