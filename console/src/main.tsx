import 'uplot/dist/uPlot.min.css';
import './style.css';
import { render } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { apiClient, apiError } from './api';
import { SessionContext } from './context';
import { environmentLabel, loadSessions, saveSessions, type Permission, type Session } from './session';
import { ErrorBox, Field, useAction } from './ui';
import { Overview } from './screens/overview';
import { Catalog } from './screens/catalog';
import { Customers } from './screens/customers';
import { Invoices } from './screens/invoices';
import { Keys } from './screens/keys';
import { Sql } from './screens/sql';
import { Reports } from './screens/reports';
import { Webhooks } from './screens/webhooks';
import { Agents } from './screens/agents';
import { Rules } from './screens/rules';

const SCREENS = [
  ['overview', 'Overview', Overview],
  ['agents', 'Agents', Agents],
  ['catalog', 'Catalog', Catalog],
  ['customers', 'Customers', Customers],
  ['invoices', 'Invoices', Invoices],
  ['reports', 'Reports', Reports],
  ['rules', 'Costs & rules', Rules],
  ['webhooks', 'Webhooks', Webhooks],
  ['keys', 'Settings: API keys', Keys],
  ['sql', 'SQL', Sql],
] as const;

/** Screens only admin keys see (docs/console.md): the key list and the SQL endpoint are the admin key's. */
const ADMIN_ONLY: ReadonlySet<string> = new Set(['keys', 'sql']);

/** What a key may do: probed with harmless requests (a read, the admin list, an empty create refused before validation only when writing is not allowed). */
async function probePermission(key: string): Promise<Permission> {
  const headers = { authorization: `Bearer ${key}` };
  const read = await fetch('/api/v1/account/all?limit=1', { headers });
  if (!read.ok) throw apiError(read, await read.json().catch(() => undefined));
  if ((await fetch('/api/v1/api_keys?limit=1', { headers })).ok) return 'admin';
  const write = await fetch('/api/v1/account/create', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
  return write.status === 403 ? 'read-only' : 'read-write';
}

/** Sign in; with `onCancel` (adding an environment), Cancel or Escape returns to the current one. */
function SignIn({ onSignIn, onCancel, place }: { onSignIn: (s: Session) => void; onCancel?: () => void; place: number }) {
  const [key, setKey] = useState('');
  const [label, setLabel] = useState('');
  const action = useAction();
  // A layout effect: the listener is there as soon as the form is, before any key can be pressed on it
  // (an effect runs after paint, and on a busy machine an Escape came first and was lost).
  useLayoutEffect(() => {
    if (!onCancel) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onCancel();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <main class="signin">
      <h1>Tally console</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            const k = key.trim();
            const permission = await probePermission(k);
            onSignIn({ key: k, label: environmentLabel(label, place), permission });
          });
        }}
      >
        <Field label="API key" name="api_key" type="password" value={key} onInput={setKey} required />
        <Field label="Environment name (optional)" name="label" value={label} onInput={setLabel} placeholder="production" />
        <button type="submit" disabled={action.busy || key.trim() === ''}>
          Sign in
        </button>
        {onCancel ? (
          <button type="button" class="small" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
        <p class="muted">The key stays in this tab only (sessionStorage) and is sent to this server's API. Its permission decides what you can see and change.</p>
        <ErrorBox error={action.error} />
      </form>
    </main>
  );
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

/**
 * Moves focus to the screen's heading when the screen changes (not on the first render, so
 * a reload's first Tab still reaches the skip link): keyboard and screen-reader users land
 * on the new screen instead of staying on the link they followed.
 */
function useFocusOnChange(key: string) {
  const heading = useRef<HTMLHeadingElement>(null);
  const last = useRef(key);
  useEffect(() => {
    if (last.current === key) return;
    last.current = key;
    heading.current?.focus();
  }, [key]);
  return heading;
}

function App() {
  const [state, setState] = useState(loadSessions);
  const [adding, setAdding] = useState(false);
  const hash = useHash();
  const route = hash.replace(/^#\/?/, '').split('/')[0] || 'overview';
  const heading = useFocusOnChange(`${state.current}:${route}`);
  const set = (sessions: Session[], current: number) => {
    saveSessions(sessions, current);
    setState({ sessions, current });
  };
  const session = state.sessions[state.current];
  const ctx = useMemo(
    () => (session ? { session, client: apiClient(session.key), canWrite: session.permission !== 'read-only', isAdmin: session.permission === 'admin' } : undefined),
    [session],
  );
  if (!ctx || adding) {
    return (
      <SignIn
        onSignIn={(s) => {
          setAdding(false);
          set([...state.sessions, s], state.sessions.length);
        }}
        place={state.sessions.length + 1}
        {...(ctx ? { onCancel: () => setAdding(false) } : {})}
      />
    );
  }
  const screens = SCREENS.filter((s) => ctx.isAdmin || !ADMIN_ONLY.has(s[0]));
  const screen = screens.find((s) => s[0] === route) ?? SCREENS[0];
  const Screen = screen[2];
  return (
    <SessionContext.Provider value={ctx}>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          // The hash names screens: the skip link moves focus instead of changing it.
          e.preventDefault();
          heading.current?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <strong class="brand">Tally</strong>
        <label class="env">
          <span>Environment</span>
          <select name="environment" value={String(state.current)} onChange={(e) => set(state.sessions, Number((e.target as HTMLSelectElement).value))}>
            {state.sessions.map((s, i) => (
              <option key={i} value={String(i)}>
                {s.label} ({s.permission})
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="small" onClick={() => setAdding(true)}>
          Add environment
        </button>
        <button
          type="button"
          class="small"
          onClick={() => {
            const rest = state.sessions.filter((_, i) => i !== state.current);
            set(rest, 0);
          }}
        >
          Sign out
        </button>
      </header>
      <nav class="side" aria-label="Screens">
        {screens.map(([id, label]) => (
          <a key={id} href={`#/${id}`} aria-current={id === screen[0] ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <h1 tabIndex={-1} ref={heading}>
          {screen[1]}
        </h1>
        <Screen key={`${state.current}:${screen[0]}`} />
      </main>
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);
