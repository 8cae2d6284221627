/**
 * Provider names as the OpenTelemetry GenAI conventions list them (`gen_ai.provider.name`
 * well-known values, @opentelemetry/semantic-conventions 1.45 incubating), from the names
 * instrumentations send: OpenLLMetry's `gen_ai.system` ("OpenAI", "Anthropic"),
 * OpenInference's `llm.provider` / `llm.system` ("mistralai", "vertexai", "aws", "xai"),
 * LangSmith's `gen_ai.system` ("vertex_ai", "xai"), the Vercel AI SDK's provider ids
 * ("openai.chat", "anthropic.messages", "google.generative-ai", "amazon-bedrock").
 */
const ALIASES_AS_SENT: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'aws.bedrock': 'aws.bedrock', bedrock: 'aws.bedrock', 'amazon-bedrock': 'aws.bedrock', aws_bedrock: 'aws.bedrock', aws: 'aws.bedrock', amazon: 'aws.bedrock',
  'azure.ai.openai': 'azure.ai.openai', 'az.ai.openai': 'azure.ai.openai', azure: 'azure.ai.openai', 'azure-openai': 'azure.ai.openai', azure_openai: 'azure.ai.openai',
  'azure.ai.inference': 'azure.ai.inference', 'az.ai.inference': 'azure.ai.inference', azure_ai_inference: 'azure.ai.inference',
  cohere: 'cohere',
  deepseek: 'deepseek',
  'gcp.gemini': 'gcp.gemini', gemini: 'gcp.gemini', 'google.generative-ai': 'gcp.gemini', google_genai: 'gcp.gemini', google_generativeai: 'gcp.gemini',
  'gcp.vertex_ai': 'gcp.vertex_ai', vertex_ai: 'gcp.vertex_ai', vertexai: 'gcp.vertex_ai', 'google.vertex': 'gcp.vertex_ai', vertex: 'gcp.vertex_ai',
  'gcp.gen_ai': 'gcp.gen_ai', google: 'gcp.gen_ai',
  groq: 'groq',
  'ibm.watsonx.ai': 'ibm.watsonx.ai', watsonx: 'ibm.watsonx.ai',
  mistral_ai: 'mistral_ai', mistralai: 'mistral_ai', mistral: 'mistral_ai',
  perplexity: 'perplexity',
  x_ai: 'x_ai', xai: 'x_ai',
};

/**
 * A name as looked up: lower case, each run of spaces, hyphens and underscores one `_`
 * ("AWS Bedrock", "aws-bedrock" and "aws_bedrock" are one name); dots separate the parts
 * of an id.
 */
const lookupKey = (name: string): string => name.trim().toLowerCase().replace(/[\s_-]+/g, '_');

/** {@link ALIASES_AS_SENT} by lookup key. */
const ALIASES: ReadonlyMap<string, string> = new Map(Object.entries(ALIASES_AS_SENT).map(([sent, known]) => [lookupKey(sent), known]));

/**
 * The well-known name of a provider name as sent, or undefined when it is none of them.
 * Case, spaces, hyphens and underscores are not told apart ("AWS Bedrock" is
 * "aws_bedrock", `aws.bedrock`); a dotted id is read from its longest known prefix
 * ("google.vertex.chat" is "google.vertex", Vertex AI).
 */
export function wellKnownProvider(sent: string): string | undefined {
  const parts = lookupKey(sent).split('.');
  for (let n = parts.length; n > 0; n--) {
    const known = ALIASES.get(parts.slice(0, n).join('.'));
    if (known !== undefined) return known;
  }
  return undefined;
}
