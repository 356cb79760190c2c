// The MCP features of the reference conformance server (test/helpers/conformance-server.mjs):
// one low-level SDK `Server` per session with exactly the tools, resources, prompts, completion
// and logging that the official MCP conformance suite (@modelcontextprotocol/conformance) asks a
// server for, by the names and shapes its server scenarios check. Owns no transport: the entry
// file connects it over Streamable HTTP or stdio. Imports only the MCP SDK and Node built-ins.
//
// The low-level Server (not McpServer) is used on purpose: the json-schema-2020-12 scenario needs
// a tool whose inputSchema is listed verbatim ($schema, $defs, additionalProperties), which
// McpServer's zod-derived listing would rewrite.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

// A 1x1 PNG and a minimal WAV: the smallest valid media the image/audio scenarios accept.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';
const LEVELS = LoggingLevelSchema.options; // debug … emergency, least to most severe
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (t) => ({ type: 'text', text: t });
const noArgs = { type: 'object', properties: {} };

const JSON_SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
};

// SEP-1034: a default for every primitive type the elicitation schema allows.
const DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true },
  },
  required: [],
};

// SEP-1330: the five enum shapes (untitled/titled/legacy single-select, untitled/titled multi-select).
const titled = (prefix, titles) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
const ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Pick one', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Pick one (titled)',
      oneOf: titled('value', ['First Option', 'Second Option', 'Third Option']),
    },
    legacyEnum: {
      type: 'string',
      description: 'Pick one (legacy titles)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three'],
    },
    untitledMulti: {
      type: 'array',
      description: 'Pick several',
      minItems: 1,
      maxItems: 3,
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    },
    titledMulti: {
      type: 'array',
      description: 'Pick several (titled)',
      minItems: 1,
      maxItems: 3,
      items: { anyOf: titled('value', ['First Choice', 'Second Choice', 'Third Choice']) },
    },
  },
  required: [],
};

const TOOLS = [
  ['test_simple_text', 'Returns one text block', noArgs],
  ['test_image_content', 'Returns one PNG image block', noArgs],
  ['test_audio_content', 'Returns one WAV audio block', noArgs],
  ['test_embedded_resource', 'Returns one embedded text resource', noArgs],
  ['test_multiple_content_types', 'Returns text, image and an embedded resource', noArgs],
  ['test_tool_with_logging', 'Sends three info log notifications while it runs', noArgs],
  ['test_tool_with_progress', 'Reports progress 0, 50, 100 of 100 when given a progress token', noArgs],
  ['test_error_handling', 'Always fails with isError: true', noArgs],
  ['test_reconnection', 'Closes its SSE stream mid-call and answers after the client resumes (SEP-1699)', noArgs],
  [
    'test_sampling',
    'Asks the client for an LLM completion (sampling/createMessage)',
    {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
  ],
  [
    'test_elicitation',
    'Asks the client for user input (elicitation/create)',
    {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
  ],
  ['test_elicitation_sep1034_defaults', 'Elicits a form whose fields all carry defaults (SEP-1034)', noArgs],
  ['test_elicitation_sep1330_enums', 'Elicits a form with every enum shape (SEP-1330)', noArgs],
  ['json_schema_2020_12_tool', 'Lists a JSON Schema 2020-12 input schema verbatim (SEP-1613)', JSON_SCHEMA_2020_12],
].map(([name, description, inputSchema]) => ({ name, description, inputSchema }));

const RESOURCES = {
  'test://static-text': {
    name: 'static-text',
    mimeType: 'text/plain',
    text: 'This is the content of the static text resource.',
  },
  'test://static-binary': { name: 'static-binary', mimeType: 'image/png', blob: PNG },
  'test://watched-resource': { name: 'watched-resource', mimeType: 'text/plain', text: 'Watched resource content' },
};
const TEMPLATE = /^test:\/\/template\/([^/]+)\/data$/;

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two required arguments',
    arguments: [
      { name: 'arg1', description: 'First argument', required: true },
      { name: 'arg2', description: 'Second argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];
const COMPLETIONS = ['paris', 'park', 'party', 'test', 'testing', 'value'];

/** A fresh Server for one client session. `state` is per session: log level and subscriptions. */
export function createConformanceServer() {
  const server = new Server(
    { name: 'chio-conformance-reference', version: '1.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, logging: {}, completions: {} } },
  );
  const state = { level: 'info', subscriptions: new Set() };
  const log = (extra, level, data) =>
    LEVELS.indexOf(level) < LEVELS.indexOf(state.level)
      ? Promise.resolve()
      : extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'conformance', data } });
  // The arguments are client-controlled: only the named string fields are read.
  const stringArg = (args, key) => {
    const v = args?.[key];
    if (typeof v !== 'string') throw new McpError(ErrorCode.InvalidParams, `argument "${key}" must be a string`);
    return v;
  };
  const clientCan = (capability) => Boolean(server.getClientCapabilities()?.[capability]);
  const elicit = async (extra, message, requestedSchema) => {
    if (!clientCan('elicitation')) return { isError: true, content: [text('The client does not support elicitation')] };
    const r = await extra.sendRequest(
      { method: 'elicitation/create', params: { mode: 'form', message, requestedSchema } },
      ElicitResultSchema,
    );
    return { content: [text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`)] };
  };

  const tools = {
    test_simple_text: async () => ({ content: [text('This is a simple text response for testing.')] }),
    test_image_content: async () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
    test_audio_content: async () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
    test_embedded_resource: async () => ({
      content: [
        {
          type: 'resource',
          resource: {
            uri: 'test://embedded-resource',
            mimeType: 'text/plain',
            text: 'This is an embedded resource content.',
          },
        },
      ],
    }),
    test_multiple_content_types: async () => ({
      content: [
        text('Multiple content types test:'),
        { type: 'image', data: PNG, mimeType: 'image/png' },
        {
          type: 'resource',
          resource: {
            uri: 'test://mixed-content-resource',
            mimeType: 'application/json',
            text: JSON.stringify({ test: 'data', value: 123 }),
          },
        },
      ],
    }),
    test_tool_with_logging: async (_args, extra) => {
      await log(extra, 'info', 'Tool execution started');
      await sleep(50);
      await log(extra, 'info', 'Tool processing data');
      await sleep(50);
      await log(extra, 'info', 'Tool execution completed');
      return { content: [text('Tool with logging executed successfully')] };
    },
    test_tool_with_progress: async (_args, extra) => {
      const progressToken = extra._meta?.progressToken;
      for (const progress of [0, 50, 100]) {
        if (progressToken !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total: 100, message: `${progress} of 100` },
          });
        }
        if (progress < 100) await sleep(50);
      }
      return { content: [text(`Progress reported for token ${JSON.stringify(progressToken ?? null)}`)] };
    },
    test_error_handling: async () => ({
      isError: true,
      content: [text('This tool intentionally returns an error for testing')],
    }),
    test_reconnection: async (_args, extra) => {
      // Only Streamable HTTP with an event store offers this; over stdio the call simply answers.
      extra.closeSSEStream?.();
      await sleep(100);
      return {
        content: [text('Reconnection test completed: the result reached the client after its stream was closed.')],
      };
    },
    test_sampling: async (args, extra) => {
      const prompt = stringArg(args, 'prompt');
      if (!clientCan('sampling')) return { isError: true, content: [text('The client does not support sampling')] };
      const r = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: { messages: [{ role: 'user', content: text(prompt) }], maxTokens: 100 },
        },
        CreateMessageResultSchema,
      );
      const reply = r.content?.type === 'text' ? r.content.text : JSON.stringify(r.content);
      return { content: [text(`LLM response: ${reply}`)] };
    },
    test_elicitation: async (args, extra) =>
      elicit(extra, stringArg(args, 'message'), {
        type: 'object',
        properties: {
          username: { type: 'string', description: 'Your user name' },
          email: { type: 'string', description: 'Your email address' },
        },
        required: ['username', 'email'],
      }),
    test_elicitation_sep1034_defaults: async (_args, extra) =>
      elicit(extra, 'Please review the fields (each has a default)', DEFAULTS_SCHEMA),
    test_elicitation_sep1330_enums: async (_args, extra) => elicit(extra, 'Please pick from each list', ENUMS_SCHEMA),
    json_schema_2020_12_tool: async (args) => ({
      content: [text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args ?? {})}`)],
    }),
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = Object.hasOwn(tools, request.params.name) ? tools[request.params.name] : undefined;
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return tool(request.params.arguments ?? {}, extra);
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: Object.entries(RESOURCES).map(([uri, r]) => ({ uri, name: r.name, mimeType: r.mimeType })),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'test://template/{id}/data',
        name: 'template',
        description: 'Data for one id',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const fixed = Object.hasOwn(RESOURCES, uri) ? RESOURCES[uri] : undefined;
    if (fixed) {
      const { name: _name, ...body } = fixed;
      return { contents: [{ uri, ...body }] };
    }
    const m = TEMPLATE.exec(uri);
    if (m) {
      const id = decodeURIComponent(m[1]);
      return {
        contents: [
          {
            uri,
            mimeType: 'application/json',
            text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
          },
        ],
      };
    }
    throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    state.subscriptions.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    state.subscriptions.delete(request.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const user = (content) => ({ role: 'user', content });
    switch (name) {
      case 'test_simple_prompt':
        return { messages: [user(text('This is a simple prompt for testing.'))] };
      case 'test_prompt_with_arguments':
        return {
          messages: [
            user(text(`Prompt with arguments: arg1='${stringArg(args, 'arg1')}', arg2='${stringArg(args, 'arg2')}'`)),
          ],
        };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            user({
              type: 'resource',
              resource: {
                uri: stringArg(args, 'resourceUri'),
                mimeType: 'text/plain',
                text: 'Embedded resource content for testing.',
              },
            }),
            user(text('Please process the embedded resource above.')),
          ],
        };
      case 'test_prompt_with_image':
        return {
          messages: [
            user({ type: 'image', data: PNG, mimeType: 'image/png' }),
            user(text('Please analyze the image above.')),
          ],
        };
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    }
  });

  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const prefix = request.params.argument.value.toLowerCase();
    const values = COMPLETIONS.filter((v) => v.startsWith(prefix));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  // Replaces the SDK's built-in handler so the level is this session's, applied to the tools' logs.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    state.level = request.params.level;
    return {};
  });
  return server;
}
