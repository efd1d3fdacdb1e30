// A `cmd:` agent (test/external-agent/server-tools.test.ts) that asks its model, through Colony's proxy
// (OPENAI_BASE_URL / OPENAI_API_KEY), for the vendor's web search, and prints what it got.
import OpenAI from 'openai';

const openai = new OpenAI({ maxRetries: 0 });
try {
  const res = await openai.chat.completions.create({
    model: 'whatever',
    messages: [{ role: 'user', content: 'search the web' }],
    web_search_options: {},
  });
  console.log(`answered: ${res.choices[0]?.message.content}`);
} catch (error) {
  console.log(`refused: ${error.status} ${error.message}`);
}
