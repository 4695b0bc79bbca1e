/**
 * The signed-in user's own two-step verification, once it is on (Settings): new recovery codes
 * and turning it off. Both ask for a current code, as the server does: a session left open on a
 * shared computer must not be enough to weaken the account.
 */
import { useState } from 'preact/hooks';
import { gql } from '../api.js';
import { DashboardDisableTwoFactorDocument, DashboardRegenerateRecoveryCodesDocument } from '../generated.js';
import { Alert, CopyButton, Field, useAction, useApp } from '../ui.js';

/** A 6-digit TOTP code or a recovery code: either fits, and nothing longer is worth sending. */
const CODE_MAX_LENGTH = 64;

export function OwnTwoFactor({ onTurnedOff }: { onTurnedOff: () => void }) {
  return (
    <>
      <RegenerateRecoveryCodes />
      <TurnOffTwoFactor onTurnedOff={onTurnedOff} />
    </>
  );
}

function CurrentCodeField({ value, onInput }: { value: string; onInput: (value: string) => void }) {
  const { t } = useApp();
  return (
    <Field
      label={t.code}
      hint={t.currentCodeHint}
      name="code"
      autoComplete="one-time-code"
      required
      maxLength={CODE_MAX_LENGTH}
      value={value}
      onInput={(e) => onInput(e.currentTarget.value)}
    />
  );
}

function RegenerateRecoveryCodes() {
  const { t } = useApp();
  const action = useAction();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setCodes(null);
      setCodes((await gql(DashboardRegenerateRecoveryCodesDocument, { code: code.trim() })).regenerateRecoveryCodes);
      setCode('');
    });
  };
  return (
    <section class="card narrow" aria-labelledby="recovery-codes">
      <h2 id="recovery-codes">{t.newRecoveryCodes}</h2>
      {codes ? (
        <RecoveryCodesOnce codes={codes} />
      ) : (
        <>
          <p>{t.newRecoveryCodesHelp}</p>
          <Alert error={action.error} />
          <form onSubmit={submit} method="post" action="#" data-form="regenerate-recovery-codes">
            <CurrentCodeField value={code} onInput={setCode} />
            <button type="submit" disabled={action.busy}>
              {t.generateCodes}
            </button>
          </form>
        </>
      )}
    </section>
  );
}

/** Codes shown once: the warning first, then the list, a copy button and a text file to keep. */
function RecoveryCodesOnce({ codes }: { codes: string[] }) {
  const { t } = useApp();
  const text = codes.join('\n');
  return (
    <div class="secret">
      <p role="alert">
        <strong>{t.storeCodesNow}</strong>
      </p>
      <ul class="codes" data-recovery-codes>
        {codes.map((recovery) => (
          <li key={recovery}>
            <code>{recovery}</code>
          </li>
        ))}
      </ul>
      <div class="secret-row">
        <CopyButton value={text} />
        {/* A data: link, not a blob: one: nothing to revoke, and the file never leaves the page. */}
        <a class="button secondary" href={`data:text/plain;charset=utf-8,${encodeURIComponent(`${text}\n`)}`} download="recovery-codes.txt">
          {t.downloadCodes}
        </a>
      </div>
    </div>
  );
}

function TurnOffTwoFactor({ onTurnedOff }: { onTurnedOff: () => void }) {
  const { t } = useApp();
  const action = useAction();
  const [code, setCode] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await gql(DashboardDisableTwoFactorDocument, { code: code.trim() });
      setCode('');
      onTurnedOff();
    });
  };
  return (
    <section class="card narrow" aria-labelledby="turn-off-two-factor">
      <h2 id="turn-off-two-factor">{t.turnOffTwoFactor}</h2>
      <p>{t.turnOffTwoFactorHelp}</p>
      {/* The server's refusal as it says it (e.g. the team requires two-step verification). */}
      <Alert error={action.error} />
      <form onSubmit={submit} method="post" action="#" data-form="turn-off-two-factor">
        <CurrentCodeField value={code} onInput={setCode} />
        <button type="submit" class="danger" disabled={action.busy}>
          {t.turnOff}
        </button>
      </form>
    </section>
  );
}
