/**
 * What the proxy forwards of a client's request (issue 27): per protocol, the body fields it knows
 * and the `anthropic-beta` values it knows; anything else is dropped, so a CLI cannot switch on
 * vendor features Colony neither meters nor contains. What would make the vendor act on the network
 * for the agent (server-side tools, MCP connectors, a code-execution container, a URL the vendor
 * fetches: vendor-side.ts) is refused unless the run allows the network (`--allow-network`): the
 * agent's sandbox has no network, and the vendor's would be its way around that.
 *
 * The lists are what the pinned CLIs send (Claude Code 2.1.100, Codex 0.171.0, seen through the fake
 * provider) and what the vendors' references document for a model call.
 */
import { err, ok, type Result } from '../lang/result.js';
import { remoteReference, vendorTool } from './vendor-side.js';
import type { WireProtocol } from './wire.js';

/** Fields forwarded as they are. */
const FIELDS: Record<WireProtocol, ReadonlySet<string>> = {
  anthropic: new Set([
    'model',
    'messages',
    'max_tokens',
    'system',
    'metadata',
    'stop_sequences',
    'stream',
    'temperature',
    'top_p',
    'top_k',
    'tools',
    'tool_choice',
    'thinking',
    'context_management',
    'output_config',
    'output_format',
    'cache_control',
  ]),
  'openai-chat': new Set([
    'model',
    'messages',
    'frequency_penalty',
    'presence_penalty',
    'logit_bias',
    'logprobs',
    'top_logprobs',
    'max_completion_tokens',
    'max_tokens',
    'n',
    'parallel_tool_calls',
    'prediction',
    'prompt_cache_key',
    'reasoning_effort',
    'response_format',
    'safety_identifier',
    'seed',
    'stop',
    'stream',
    'stream_options',
    'temperature',
    'tool_choice',
    'tools',
    'functions',
    'function_call',
    'top_p',
    'user',
    'verbosity',
  ]),
  'openai-responses': new Set([
    'model',
    'input',
    'instructions',
    'tools',
    'tool_choice',
    'parallel_tool_calls',
    'max_output_tokens',
    'max_tool_calls',
    'temperature',
    'top_p',
    'top_logprobs',
    'stream',
    'stream_options',
    'store',
    'metadata',
    'client_metadata',
    'previous_response_id',
    'conversation',
    'reasoning',
    'text',
    'truncation',
    'user',
    'safety_identifier',
    'prompt_cache_key',
    'include',
  ]),
};

/** Fields that make the vendor reach the network: refused without it, forwarded with it. */
const NETWORK_FIELDS: Record<WireProtocol, Readonly<Record<string, string>>> = {
  anthropic: { mcp_servers: 'MCP connectors', container: 'a code-execution container' },
  'openai-chat': { web_search_options: 'web search' },
  'openai-responses': {},
};

/** Where a request's content is (what a URL the vendor would fetch may be in). */
const CONTENT_FIELDS: Record<WireProtocol, readonly string[]> = {
  anthropic: ['system', 'messages'],
  'openai-chat': ['messages'],
  'openai-responses': ['input'],
};

const ALLOW_NETWORK = 'start the run with --allow-network to allow it';

/**
 * The request as forwarded (known fields only), or why it is refused (400): a server-side tool, an
 * MCP connector or a remote URL while the run has no network.
 */
export function admitRequest(
  protocol: WireProtocol,
  body: Record<string, unknown>,
  allowNetwork: boolean,
): Result<Record<string, unknown>, string> {
  const admitted: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    const network = NETWORK_FIELDS[protocol][field];
    if (network !== undefined && !allowNetwork) return err(refusal(`'${field}' (${network})`));
    if (network !== undefined || FIELDS[protocol].has(field)) admitted[field] = value;
  }
  if (allowNetwork) return ok(admitted);
  for (const tool of Array.isArray(admitted.tools) ? admitted.tools : []) {
    const found = vendorTool(protocol, tool);
    if (found) return err(refusal(`the server-side tool ${found}`));
  }
  for (const field of CONTENT_FIELDS[protocol]) {
    const url = remoteReference(admitted[field]);
    if (url !== null) return err(refusal(`a URL the vendor would fetch (${url.slice(0, 200)})`));
  }
  return ok(admitted);
}

function refusal(what: string): string {
  return (
    `Colony's model proxy refuses ${what}: the vendor would act on the network for the agent, ` +
    `and this run does not allow the network; ${ALLOW_NETWORK}`
  );
}

/** `anthropic-beta` features (the value's name without its date) passed on: none reaches the network. */
const BETAS = new Set([
  'claude-code',
  'interleaved-thinking',
  'context-management',
  'prompt-caching',
  'prompt-caching-scope',
  'extended-cache-ttl',
  'effort',
  'fine-grained-tool-streaming',
  'token-efficient-tools',
  'context-1m',
  'output-128k',
  'output-300k',
  'structured-outputs',
  'redact-thinking',
  'model-context-window-exceeded',
  'search-results',
  'pdfs',
  'task-budgets',
  'tool-examples',
  'advanced-tool-use',
]);

/** Features of server-side tools: passed on only when the run allows the network. */
const NETWORK_BETAS = new Set([
  'web-search',
  'web-fetch',
  'code-execution',
  'mcp-client',
  'mcp-servers',
  'computer-use',
  'skills',
  'files-api',
  'tool-search-tool',
  'advisor-tool',
]);

/**
 * The value of a client header as forwarded upstream (undefined: not forwarded). `anthropic-beta`
 * keeps the features above; `anthropic-version` passes; no other client header is forwarded here.
 */
export function admittedHeader(name: string, value: string, allowNetwork: boolean): string | undefined {
  if (name === 'anthropic-version') return value;
  if (name !== 'anthropic-beta') return undefined;
  const kept = value
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => {
      const feature = beta.replace(/-\d{4}-?\d{2}-?\d{2}$/, '');
      return BETAS.has(feature) || (allowNetwork && NETWORK_BETAS.has(feature));
    });
  return kept.length > 0 ? kept.join(',') : undefined;
}
