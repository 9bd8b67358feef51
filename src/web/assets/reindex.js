// Re-indexing a library from its page: start a job, follow its progress, stop it. A job that is
// already queued or running for the library (started elsewhere, or by drift) is picked up.

import { api, path } from './api.js';
import { errorNotice, fill, h, number } from './dom.js';

const POLL_MS = 500;

export function reindexPanel(lib, onFinished) {
  const status = h('div', { class: 'reindex-status', 'aria-live': 'polite' });
  const start = h('button', { type: 'button', class: 'small' }, 'Re-index');
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
      } }, 'Stop');
      fill(status,
        h('span', {}, job.state === 'queued' ? 'Re-index queued' : `Re-signing ${number(job.done)} of ${number(job.total)} documents`),
        h('progress', { max: Math.max(job.total, 1), value: Math.min(job.done, job.total), 'aria-label': 'Re-index progress' }),
        stop);
      timer = setTimeout(() => follow(job.job), POLL_MS);
    } else if (job.state === 'done') {
      fill(status, h('span', { class: 'ok' }, `Re-indexed: statistics generation ${job.generation}.`));
      onFinished();
    } else if (job.state === 'aborted') {
      fill(status, h('span', {}, `Stopped after ${number(job.done)} of ${number(job.total)} documents; re-index again to resume.`));
    } else {
      fill(status, h('span', { class: 'error-text' }, `Re-index failed: ${job.error || 'unknown error'}`));
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
