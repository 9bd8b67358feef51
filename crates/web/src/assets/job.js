// A library job run from its page (a re-index, the search for duplicates): a button starts it,
// its progress is followed with a button to stop it, and its outcome stays in view. A job that
// is already queued or running for the library (started elsewhere) is picked up.

import { api, path } from './api.js';
import { errorNotice, fill, h } from './dom.js';

const POLL_MS = 500;

const active = (job) => job.state === 'queued' || job.state === 'running';

// `start`: the button's label and id, and the URL a POST to starts the job at. `kind`: only jobs
// of this kind are picked up (without one, any job of the library). `text`: what is shown
// for each state, given the job: `stop` and `progress` (the progress bar's label), then
// `queued`, `running`, `done`, `aborted` and `failed`.
export function jobPanel({ library, kind, start: { label, id, url }, text, onFinished }) {
  const status = h('div', { class: 'reindex-status', 'aria-live': 'polite' });
  const start = h('button', { type: 'button', class: 'small', id }, label);
  const panel = h('div', { class: 'reindex' }, start, status);
  let timer = null;

  const show = (job) => {
    const running = active(job);
    start.disabled = running;
    if (running) {
      const stop = h('button', { type: 'button', class: 'small danger', onclick: async () => {
        try {
          await api(`/api/v1/jobs/${path(job.job)}`, { method: 'DELETE' });
        } catch (error) {
          fill(status, errorNotice(error));
        }
      } }, text.stop());
      fill(status,
        h('span', {}, job.state === 'queued' ? text.queued() : text.running(job)),
        h('progress', { max: Math.max(job.total, 1), value: Math.min(job.done, job.total), 'aria-label': text.progress() }),
        stop);
      timer = setTimeout(() => follow(job.job), POLL_MS);
    } else if (job.state === 'done') {
      fill(status, h('span', { class: 'ok' }, text.done(job)));
      onFinished();
    } else if (job.state === 'aborted') {
      fill(status, h('span', {}, text.aborted(job)));
    } else {
      fill(status, h('span', { class: 'error-text' }, text.failed(job)));
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
      show(await api(url, { method: 'POST' }));
    } catch (error) {
      start.disabled = false;
      fill(status, errorNotice(error));
    }
  };

  api('/api/v1/jobs').then(({ jobs }) => {
    const current = jobs.find((job) => job.library === library && (kind === undefined || job.kind === kind) && active(job));
    if (current) show(current);
  }).catch(() => {});
  return panel;
}
