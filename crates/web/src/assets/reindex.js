// Re-indexing a library from its page: start a job, follow its progress, stop it. A job that is
// already queued or running for the library (started elsewhere, or by drift) is picked up.

import { api, path } from './api.js';
import { errorNotice, fill, h, number } from './dom.js';
import { t } from './i18n.js';

const POLL_MS = 500;

export function reindexPanel(lib, onFinished) {
  const status = h('div', { class: 'reindex-status', 'aria-live': 'polite' });
  const start = h('button', { type: 'button', class: 'small' }, t('reindex.start'));
  const panel = h('div', { class: 'reindex' }, start, status);
  let timer = null;

  const show = (job) => {
    const running = job.state === 'queued' || job.state === 'running';
    start.disabled = running;
    if (running) {
      const stop = h('button', { type: 'button', class: 'small danger', onclick: async () => {
        try {
          await api(`/api/v1/jobs/${path(job.job)}`, { method: 'DELETE' });
        } catch (error) {
          fill(status, errorNotice(error));
        }
      } }, t('reindex.stop'));
      fill(status,
        h('span', {}, job.state === 'queued' ? t('reindex.queued') : t('reindex.running', { done: number(job.done), total: number(job.total) })),
        h('progress', { max: Math.max(job.total, 1), value: Math.min(job.done, job.total), 'aria-label': t('reindex.progress') }),
        stop);
      timer = setTimeout(() => follow(job.job), POLL_MS);
    } else if (job.state === 'done') {
      fill(status, h('span', { class: 'ok' }, t('reindex.done', { n: job.generation })));
      onFinished();
    } else if (job.state === 'aborted') {
      fill(status, h('span', {}, t('reindex.aborted', { done: number(job.done), total: number(job.total) })));
    } else {
      fill(status, h('span', { class: 'error-text' }, t('reindex.failed', { error: job.error || t('common.unknown_error') })));
    }
  };

  const follow = async (id) => {
    if (!panel.isConnected) return;
    try {
      show(await api(`/api/v1/jobs/${path(id)}`));
    } catch (error) {
      fill(status, errorNotice(error, () => follow(id)));
    }
  };

  start.onclick = async () => {
    clearTimeout(timer);
    start.disabled = true;
    try {
      show(await api(`/api/v1/libraries/${path(lib.id)}/reindex`, { method: 'POST' }));
    } catch (error) {
      start.disabled = false;
      fill(status, errorNotice(error));
    }
  };

  api('/api/v1/jobs').then(({ jobs }) => {
    const current = jobs.find((job) => job.library === lib.id && (job.state === 'queued' || job.state === 'running'));
    if (current) show(current);
  }).catch(() => {});
  return panel;
}
