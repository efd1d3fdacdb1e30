/**
 * The environment that points an external CLI at the proxy with its agent token as the API key.
 * Claude Code reads ANTHROPIC_BASE_URL (no /v1) and ANTHROPIC_API_KEY; OpenAI-compatible CLIs read
 * OPENAI_BASE_URL (with /v1) and OPENAI_API_KEY. Codex takes a custom provider instead (docs/proxy.md).
 */
export function modelProxyEnv(proxyUrl: string, token: string): Record<string, string> {
  const base = proxyUrl.replace(/\/+$/, '');
  return {
    ANTHROPIC_BASE_URL: base,
    ANTHROPIC_API_KEY: token,
    OPENAI_BASE_URL: `${base}/v1`,
    OPENAI_API_KEY: token,
  };
}
