/**
 * What in a model request the vendor would carry out itself, on its own network: a tool that is not
 * the client's (Anthropic's web search and fetch, code execution, MCP toolsets, computer use, …;
 * OpenAI's `web_search`, `file_search`, `code_interpreter`, `mcp`, `image_generation`, …) and a URL
 * it would fetch (an image or a document given by URL). Client-side tools are the ones the CLI runs
 * itself when the model calls them: Anthropic tools with no type or type `custom`; Chat `function`
 * and `custom`; Responses `function`, `custom`, Codex's `namespace` of those, and the shell and patch
 * tools a CLI executes (`local_shell`, `shell`, `apply_patch`).
 */
import type { WireProtocol } from './wire.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const CHAT_TOOLS = new Set(['function', 'custom']);
const RESPONSES_TOOLS = new Set(['function', 'custom', 'local_shell', 'shell', 'apply_patch']);

function isClientTool(protocol: WireProtocol, tool: Json): boolean {
  const { type } = tool;
  switch (protocol) {
    case 'anthropic':
      return type === undefined || type === 'custom';
    case 'openai-chat':
      return typeof type === 'string' && CHAT_TOOLS.has(type);
    case 'openai-responses':
      if (type === 'namespace')
        return Array.isArray(tool.tools) && tool.tools.every((t) => isObject(t) && isClientTool(protocol, t));
      return typeof type === 'string' && RESPONSES_TOOLS.has(type);
  }
}

/** A tool the vendor would run, described for the refusal (`'web_search' (web_search_20250305)`); else null. */
export function vendorTool(protocol: WireProtocol, tool: unknown): string | null {
  if (!isObject(tool)) return null;
  if (isClientTool(protocol, tool)) return null;
  const type = typeof tool.type === 'string' ? tool.type : 'without a type';
  const name = typeof tool.name === 'string' ? tool.name : null;
  return name && name !== type ? `'${name}' (type ${type})` : `of type ${type}`;
}

/** A URL the vendor would fetch, found anywhere in `value` (data: URLs are inline, not fetched). */
export function remoteReference(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (Array.isArray(item)) {
      stack.push(...item);
      continue;
    }
    if (!isObject(item)) continue;
    const url = urlOf(item);
    if (url !== null && !url.startsWith('data:')) return url;
    stack.push(...Object.values(item));
  }
  return null;
}

/**
 * The URL a content block asks the vendor to fetch: Anthropic `{source: {type: 'url', url}}` (images,
 * documents), Chat `{type: 'image_url', image_url: {url}}`, Responses `{type: 'input_image',
 * image_url}` and `{type: 'input_file', file_url}`.
 */
function urlOf(block: Json): string | null {
  const { source } = block;
  if (isObject(source) && source.type === 'url') return String(source.url ?? '');
  if (block.type === 'image_url') {
    const image = block.image_url;
    return typeof image === 'string' ? image : isObject(image) ? String(image.url ?? '') : null;
  }
  if (block.type === 'input_image' && typeof block.image_url === 'string') return block.image_url;
  if (block.type === 'input_file' && typeof block.file_url === 'string') return block.file_url;
  return null;
}
