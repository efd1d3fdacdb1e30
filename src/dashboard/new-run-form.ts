/// <reference lib="dom" />
/**
 * Start a run from the page (`POST /api/runs`, an action: it needs the server token). The server
 * checks the settings with the library's spec builder and answers its words on a bad one (shown here);
 * a good one starts `colony run` on the server's machine and the page opens the run's live page.
 */
import { getJson, postJson, token } from './api.js';
import { h } from './dom.js';

interface ModelChoice {
  id: string;
  protocol: string;
  priced: boolean;
}

const field = (label: string, control: HTMLElement, hint?: string): HTMLElement =>
  h(
    'label',
    { class: 'field' },
    h('span', { class: 'field-label' }, label),
    control,
    hint ? h('span', { class: 'muted small' }, hint) : null,
  );

/** The form, folded into a "New run" panel; `open` navigates to a run's page. */
export function newRunForm(open: (runId: string) => void): HTMLElement {
  const repo = h('input', {
    id: 'nr-repo',
    name: 'repo',
    placeholder: '/path/to/a/git/repository',
    required: true,
  });
  const goal = h('textarea', {
    id: 'nr-goal',
    name: 'goal',
    rows: 3,
    placeholder: 'What should the agents do?',
  });
  const topology = h(
    'select',
    { id: 'nr-topology', name: 'topology' },
    ...['solo', 'peers', 'orchestrated', 'planned'].map((t) => h('option', { value: t }, t)),
  );
  const agents = h('input', { id: 'nr-agents', name: 'agents', type: 'number', min: 1, value: '3' });
  const models = h('datalist', { id: 'nr-models' });
  const model = h('input', {
    id: 'nr-model',
    name: 'model',
    list: 'nr-models',
    placeholder: 'a model id or <protocol>:<model-name>',
  });
  const budgetUsd = h('input', {
    id: 'nr-budget-usd',
    name: 'budgetUsd',
    type: 'number',
    min: 0,
    step: 'any',
  });
  const budgetTokens = h('input', { id: 'nr-budget-tokens', name: 'budgetTokens', type: 'number', min: 1 });
  const verify = h('input', { id: 'nr-verify', name: 'verify', placeholder: 'e.g. npm test' });
  const sandbox = h(
    'select',
    { id: 'nr-sandbox', name: 'sandbox' },
    ...['on', 'auto', 'off'].map((s) => h('option', { value: s }, s)),
  );
  const error = h('p', { id: 'nr-error', class: 'error small', role: 'alert' });
  const submit = h('button', { id: 'nr-start', type: 'submit' }, 'Start run');
  const missing = token() === null;
  if (missing) {
    submit.disabled = true;
    submit.title = 'needs the server token';
  }
  const agentsField = field('Agents (peers)', agents);
  const showAgents = () => {
    agentsField.hidden = topology.value !== 'peers';
  };
  topology.addEventListener('change', showAgents);
  showAgents();

  const form = h(
    'form',
    { id: 'new-run', class: 'new-run' },
    field('Repository', repo, 'a path on the server’s machine'),
    field('Goal', goal),
    h(
      'div',
      { class: 'field-row' },
      field('Topology', topology),
      agentsField,
      field('Model', model),
      field('Sandbox', sandbox),
    ),
    h(
      'div',
      { class: 'field-row' },
      field('Budget (USD)', budgetUsd),
      field('Budget (tokens)', budgetTokens),
      field('Verify command', verify, 'peers need one'),
    ),
    models,
    h(
      'div',
      { class: 'form-foot' },
      submit,
      missing
        ? h(
            'span',
            { id: 'nr-token-missing', class: 'muted small' },
            'Starting a run needs the server token: open the URL colony serve printed (#token=…).',
          )
        : null,
    ),
    error,
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (token() === null) {
      error.textContent =
        'Starting a run needs the server token: open the URL colony serve printed (#token=…).';
      return;
    }
    const body: Record<string, unknown> = {
      repo: repo.value,
      goal: goal.value,
      topology: topology.value,
      model: model.value,
      sandbox: sandbox.value,
    };
    if (topology.value === 'peers') body.agents = agents.value;
    if (budgetUsd.value !== '') body.budgetUsd = budgetUsd.value;
    if (budgetTokens.value !== '') body.budgetTokens = budgetTokens.value;
    if (verify.value.trim() !== '') body.verify = verify.value;
    error.textContent = '';
    submit.disabled = true;
    submit.textContent = 'Starting…';
    void postJson<{ runId: string }>('/api/runs', body).then((r) => {
      submit.disabled = false;
      submit.textContent = 'Start run';
      if (r.ok) open(r.value.runId);
      else error.textContent = r.error;
    });
  });
  void getJson<{ models: ModelChoice[] }>('/api/models').then((r) => {
    if (!r.ok) return;
    models.replaceChildren(
      ...r.value.models.map((m) =>
        h('option', { value: m.id }, `${m.protocol}${m.priced ? '' : ', unpriced'}`),
      ),
    );
  });

  return h(
    'details',
    { class: 'panel new-run-panel', id: 'new-run-panel' },
    h('summary', {}, h('strong', {}, 'New run')),
    form,
  );
}
