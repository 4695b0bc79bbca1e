/**
 * Payout batches: a CSV upload (header `method,amount,phone,first_name,last_name,reason,reference`;
 * the file as it is, to POST /dashboard/uploads/payout-batch: up to 5,000 lines, 1 MiB) becomes a
 * draft whose refused lines are named before anything is sent; the merchant starts the valid lines
 * or discards it, then watches the progress and downloads the results
 * (GET /exports/payout-batches/{id}/items.csv, by the session cookie).
 *
 * The progress is pushed (the payoutBatchProgress subscription: the batch at once, then after each
 * change, until it ends); only when that live connection fails, or drops while the batch runs, is
 * the batch read again every second instead.
 */
import { useEffect, useState } from 'preact/hooks';
import { MAX_CSV_BYTES } from '../../../domain/payoutBatches/rules.js';
import { ApiError, gql, subscribe, uploadPayoutBatchCsv } from '../api.js';
import {
  DashboardCancelPayoutBatchDocument,
  DashboardPayoutBatchDocument,
  DashboardPayoutBatchProgressDocument,
  DashboardStartPayoutBatchDocument,
  type DashboardPayoutBatchFieldsFragment,
} from '../generated.js';
import { navigate } from '../router.js';
import { Alert, ConfirmButton, Money, PageTitle, StatusBadge, Table, useAction, useApp, useMay } from '../ui.js';

/** Without the live connection, a running batch is read again this often. */
const PROGRESS_EVERY_MS = 1_000;

export function NewPayoutBatchPage() {
  const { t } = useApp();
  const action = useAction();
  const upload = (event: Event) => {
    event.preventDefault();
    const file = (event.currentTarget as HTMLFormElement).querySelector<HTMLInputElement>('input[type=file]')?.files?.[0];
    if (!file) return;
    void action.run(async () => {
      // Said at once, without sending a megabyte to be told so (the server refuses it too: 413).
      if (file.size > MAX_CSV_BYTES) throw new ApiError(t.csvTooLarge(file.size), 413);
      const { id } = await uploadPayoutBatchCsv(file);
      navigate(`/payouts/batches/${id}`);
    });
  };
  return (
    <>
      <PageTitle>{t.newPayoutBatch}</PageTitle>
      <p>{t.payoutBatchHelp}</p>
      <p>
        <code>method,amount,phone,first_name,last_name,reason,reference</code>
      </p>
      <Alert error={action.error} />
      <form class="inline" onSubmit={upload} method="post" action="#">
        <label>
          {t.csvFile} <input type="file" name="csv" accept=".csv,text/csv" required />
        </label>
        <button type="submit" disabled={action.busy}>
          {t.checkFile}
        </button>
      </form>
    </>
  );
}

type Batch = DashboardPayoutBatchFieldsFragment;

export function PayoutBatchPage({ id }: { id: string }) {
  const { t } = useApp();
  const may = useMay();
  const action = useAction();
  const [batch, setBatch] = useState<Batch | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const live = new AbortController();
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const shown: { last: Batch | null } = { last: null };
    const show = (payoutBatch: Batch) => {
      shown.last = payoutBatch;
      setBatch(payoutBatch);
      setError(null);
    };
    // The fallback: read now, then every second while it runs.
    const poll = async () => {
      try {
        const { payoutBatch } = await gql(DashboardPayoutBatchDocument, { id });
        if (stopped) return;
        show(payoutBatch);
        if (payoutBatch.status === 'running') timer = setTimeout(poll, PROGRESS_EVERY_MS);
      } catch (failure) {
        if (!stopped) setError(failure);
      }
    };
    void (async () => {
      try {
        await subscribe(DashboardPayoutBatchProgressDocument, { id }, ({ payoutBatchProgress }) => !stopped && show(payoutBatchProgress), live.signal);
        // Completed: the batch ended, unless the server stopped the stream early (it restarts, an hour passed).
        if (!stopped && shown.last?.status === 'running') void poll();
      } catch {
        // The live connection failed (or was refused: reading says why, if the batch cannot be read either).
        if (!stopped) void poll();
      }
    })();
    return () => {
      stopped = true;
      live.abort();
      clearTimeout(timer);
    };
  }, [id, generation]);
  const act = (work: () => Promise<unknown>) =>
    action.run(async () => {
      await work();
      setGeneration((value) => value + 1);
    });
  if (error) return <Alert error={error} />;
  if (!batch) return <p aria-live="polite">{t.loading}</p>;
  const { counts } = batch;
  const done = counts.completed + counts.failed + counts.pending + counts.cancelled;
  const rowErrors = batch.errors.filter((lineError) => lineError.line > 0);
  return (
    <>
      <PageTitle>{t.payoutBatch}</PageTitle>
      <p>
        <StatusBadge status={batch.status} /> {t.batchLines(batch.itemCount, batch.validCount)} · <Money amount={batch.totalAmount} /> +{' '}
        <Money amount={batch.totalFees} /> {t.batchFees}
      </p>
      <Alert error={action.error} />
      {batch.errors.length > 0 && (
        <Table caption={t.refusedLines}>
          <thead>
            <tr>
              <th scope="col">{t.line}</th>
              <th scope="col">{t.field}</th>
              <th scope="col">{t.problem}</th>
            </tr>
          </thead>
          <tbody>
            {batch.errors.map((lineError) => (
              <tr key={`${lineError.line}-${lineError.field}`} data-refused-line={lineError.line}>
                <td>{lineError.line === 0 ? t.wholeBatch : lineError.line}</td>
                <td>{lineError.field}</td>
                <td>{lineError.error}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {batch.status === 'draft' && may('startPayoutBatch') && (
        <p class="toolbar">
          <button
            type="button"
            disabled={action.busy || batch.validCount === 0}
            onClick={() => act(() => gql(DashboardStartPayoutBatchDocument, { id }))}
            data-start
          >
            {rowErrors.length > 0 ? t.startValidLines(batch.validCount) : t.startBatch(batch.validCount)}
          </button>
          <ConfirmButton
            label={t.discardBatch}
            question={t.discardBatchQuestion}
            danger
            onConfirm={() => act(() => gql(DashboardCancelPayoutBatchDocument, { id }))}
          />
        </p>
      )}
      {batch.status !== 'draft' && (
        <section class="card" aria-labelledby="progress">
          <h2 id="progress">{t.progress}</h2>
          <progress max={batch.validCount} value={done} aria-label={t.progress} data-progress={`${done}/${batch.validCount}`} />
          <p aria-live="polite">
            {t.batchProgress(done, batch.validCount)} — {t.batchCounts(counts)}
          </p>
          {batch.status === 'running' && may('cancelPayoutBatch') && (
            <ConfirmButton
              label={t.cancelBatch}
              question={t.cancelBatchQuestion}
              danger
              onConfirm={() => act(() => gql(DashboardCancelPayoutBatchDocument, { id }))}
            />
          )}
          <p>
            <a class="button secondary" href={`/exports/payout-batches/${encodeURIComponent(id)}/items.csv`} download data-results>
              {t.downloadResults}
            </a>
          </p>
        </section>
      )}
    </>
  );
}
