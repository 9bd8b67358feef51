// Checking many files at once: choose files (or one .zip), send them as a batch, follow the
// job, then list one line per file with its verdict, index and report, and offer the CSV.

import { api, download, path } from './api.js';
import { errorNotice, fill, field, h, heading, number, percent } from './dom.js';
import { t } from './i18n.js';

// The page's words, from the translation dictionaries.
const TEXT = {
  get title() { return t('batch.title'); },
  get subtitle() { return t('batch.subtitle'); },
  get files() { return t('batch.files'); },
  get filesHint() { return t('batch.files_hint'); },
  get passages() { return t('batch.passages'); },
  get send() { return t('batch.send'); },
  get none() { return t('batch.none'); },
  get queued() { return t('batch.queued'); },
  progress: (done, total) => t('batch.progress', { done: number(done), total: number(total) }),
  get stop() { return t('batch.stop'); },
  get stopped() { return t('batch.stopped'); },
  failed: (error) => t('batch.failed', { error }),
  get csv() { return t('batch.csv'); },
  get file() { return t('batch.file'); },
  get verdict() { return t('batch.verdict'); },
  get index() { return t('batch.index'); },
  get words() { return t('batch.words'); },
  get report() { return t('batch.report'); },
  get open() { return t('batch.open'); },
  verdicts: { get original() { return t('verdict.original'); }, get partial() { return t('verdict.partial'); }, get duplicate() { return t('verdict.duplicate'); } },
};

const POLL_MS = 700;

export function batchView(view, signal) {
  const input = h('input', { type: 'file', multiple: true, required: true });
  const passages = h('input', { type: 'checkbox', checked: true, id: 'batch-passages' });
  const status = h('div', { 'aria-live': 'polite' });
  const results = h('div', {});
  const form = h('form', { class: 'card', onsubmit: async (event) => {
    event.preventDefault();
    if (input.files.length === 0) {
      fill(status, errorNotice({ message: TEXT.none }));
      return;
    }
    const data = new FormData();
    for (const file of input.files) data.append('file', file, file.name);
    data.append('options', JSON.stringify({ passages: passages.checked }));
    fill(results);
    try {
      const job = await api('/api/v1/check', { method: 'POST', form: data, signal });
      // One ordinary file is answered at once: open its report.
      if (job.report_id) {
        location.hash = `#/reports/${path(job.report_id)}`;
        return;
      }
      await follow(job.job);
    } catch (error) {
      if (error.name !== 'AbortError') fill(status, errorNotice(error));
    }
  } },
  field(TEXT.files, input, TEXT.filesHint),
  h('label', { for: 'batch-passages' }, passages, ' ', TEXT.passages),
  h('p', {}, h('button', { type: 'submit' }, TEXT.send)));

  async function follow(id) {
    for (;;) {
      const job = await api(`/api/v1/jobs/${path(id)}`, { signal });
      if (job.state === 'queued' || job.state === 'running') {
        const stop = h('button', { type: 'button', class: 'small danger', onclick: () =>
          api(`/api/v1/jobs/${path(id)}`, { method: 'DELETE' }).catch((e) => fill(status, errorNotice(e))) }, TEXT.stop);
        fill(status,
          h('span', {}, job.state === 'queued' ? TEXT.queued : TEXT.progress(job.done, job.total)),
          h('progress', { max: Math.max(job.total, 1), value: Math.min(job.done, job.total) }),
          stop);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        continue;
      }
      fill(status, job.state === 'aborted' ? TEXT.stopped
        : job.state === 'failed' ? h('span', { class: 'error-text' }, TEXT.failed(job.error || '')) : '');
      const summary = await api(`/api/v1/jobs/${path(id)}/reports`, { signal });
      fill(results, table(summary.items), h('p', {}, h('button', { type: 'button', class: 'small', onclick: () =>
        download(`/api/v1/jobs/${path(id)}/reports?format=csv`, `dupfinder-${id}.csv`).catch((e) => fill(status, errorNotice(e))) }, TEXT.csv)));
      return;
    }
  }

  fill(view, heading(TEXT.title, TEXT.subtitle), form, status, results);
}

function table(items) {
  const rows = items.map((item) => h('tr', {},
    h('td', { 'data-label': TEXT.file }, item.file),
    item.error
      ? h('td', { colspan: 4, class: 'error-text' }, `${item.error.code}: ${item.error.message}`)
      : [
        h('td', { 'data-label': TEXT.verdict }, TEXT.verdicts[item.verdict] || item.verdict),
        h('td', { class: 'num', 'data-label': TEXT.index }, percent(item.similarity_index || 0, 1)),
        h('td', { class: 'num', 'data-label': TEXT.words }, number(item.words || 0)),
        h('td', { 'data-label': TEXT.report }, item.report_id ? h('a', { href: `#/reports/${path(item.report_id)}` }, TEXT.open) : ''),
      ]));
  // A table of the page's own kind: on a phone each file is a card, its labels beside its
  // figures, so no header runs past the screen.
  return h('div', { class: 'table-wrap' }, h('table', { class: 'data batch', id: 'batch-items' },
    h('thead', {}, h('tr', {}, [TEXT.file, TEXT.verdict, TEXT.index, TEXT.words, TEXT.report].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, rows)));
}
