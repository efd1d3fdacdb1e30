/**
 * Provider-neutral model types. A model is data (ModelRecord); a provider speaks one wire protocol.
 * Every provider call ends in a ModelResult: a turn or a typed error, never a throw.
 */

export type Protocol = 'openai-chat' | 'openai-responses' | 'anthropic' | 'scripted';

/** Prices in US dollars per million tokens. */
export interface Prices {
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

export interface ModelRecord {
  /** Colony's id for the model, e.g. `gpt-5-mini` or `openai-chat:llama3:8b`. */
  id: string;
  protocol: Protocol;
  /** The model name sent on the wire. */
  name: string;
  /** Base URL of the API (e.g. `https://api.openai.com/v1`); undefined = protocol default / env. */
  baseUrl?: string;
  /** Environment variable that holds the API key, e.g. `OPENAI_API_KEY`. */
  apiKeyEnv?: string;
  contextWindow: number;
  maxOutput: number;
  /** null = unpriced: cost is reported as null with a warning, never invented. */
  prices: Prices | null;
}

/**
 * Token usage of one call. `input` is uncached input only. `reasoning` is a breakdown of `output`
 * (never added on top of it). `undefined` means the provider did not say.
 */
export interface Usage {
  input: number;
  cachedInput: number | undefined;
  cacheWrite: number | undefined;
  output: number;
  reasoning: number | undefined;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Raw argument text as the model emitted it (may be invalid JSON). */
  arguments: string;
}

export type Message =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string; isError: boolean };

/** JSON Schema object describing a tool's arguments. */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface ModelRequest {
  system: string;
  messages: Message[];
  tools: ToolSpec[];
  /** Max output tokens for this call; defaults to the model record's maxOutput. */
  maxOutput?: number;
  /**
   * Number of leading messages that form the stable prefix (e.g. the task), for providers with
   * explicit cache breakpoints (Anthropic). System prompt and tools are always part of the prefix.
   */
  stablePrefixMessages?: number;
  /** Stream the response (providers that support it). */
  stream?: boolean;
}

export type StopReason = 'end' | 'tool_calls' | 'max_tokens' | 'other';

export interface ModelTurn {
  text: string;
  toolCalls: ToolCall[];
  stopReason: StopReason;
  usage: Usage;
  /** null when the model is unpriced. */
  costUsd: number | null;
  /** Model name the provider reported (or the requested one). */
  model: string;
  /** Provider's request/response id when given. */
  responseId?: string;
}

export type ModelErrorKind =
  | 'auth' // 401/403: not retried
  | 'bad_request' // 400/404/422: not retried
  | 'rate_limit' // 429 after retries
  | 'server' // 5xx / 408 / 409 after retries
  | 'timeout'
  | 'network'
  | 'aborted'
  | 'malformed' // the response could not be parsed
  | 'script'; // scripted model: unexpected or unconsumed call

export interface ModelError {
  kind: ModelErrorKind;
  message: string;
  status?: number;
  /** Attempts made, including the last one. */
  attempts: number;
}

export type ModelResult = { ok: true; turn: ModelTurn } | { ok: false; error: ModelError };

export interface CallOptions {
  signal?: AbortSignal;
  /** Streaming text deltas, for live display. */
  onText?: (delta: string) => void;
  /** Called before each retry, so the caller can log it. */
  onRetry?: (info: { attempt: number; delayMs: number; error: ModelError }) => void;
}

export interface Provider {
  readonly model: ModelRecord;
  call(request: ModelRequest, options?: CallOptions): Promise<ModelResult>;
}
