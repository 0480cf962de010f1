-- treecomplete for Neovim: starts `treecomplete-ls --stdio` for Python and JavaScript buffers.
-- Neovim >= 0.11: vim.lsp.config + vim.lsp.enable; 0.9 / 0.10: vim.lsp.start on FileType.
local M = {}

M.defaults = {
  cmd = nil, -- default: { 'treecomplete-ls', '--stdio' }, or { python, '-m', 'treecomplete', '--stdio' }
  python = nil, -- an interpreter treecomplete is installed in (used when cmd is nil)
  filetypes = { 'python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact',
    'go', 'rust', 'java', 'c', 'cpp', 'cs', 'ruby', 'php', 'kotlin', 'lua', 'sh', 'bash' },
  root_markers = { '.git', 'pyproject.toml', 'setup.py', 'package.json' },
  settings = {}, -- the server's settings: model, maxItems, maxFileSize (README.md, "Settings")
  autocomplete = true, -- turn on Neovim's built-in LSP completion (vim.lsp.completion) on attach
  autotrigger = true, -- ... and open it as you type
}

M.config = vim.deepcopy(M.defaults)

function M.command(config)
  config = config or M.config
  if config.cmd then
    return config.cmd
  end
  if config.python then
    return { config.python, '-m', 'treecomplete', '--stdio' }
  end
  return { 'treecomplete-ls', '--stdio' }
end

-- A completion item as the built-in menu shows it: the label with its signature
-- (labelDetails.detail, `join(a, /, *paths)`), and where it comes from (`os.path`) in the menu column.
function M.convert(item)
  local details = item.labelDetails or {}
  return {
    abbr = item.label .. (details.detail or ''),
    menu = details.description or item.detail or '',
  }
end

local function on_attach(client, bufnr)
  if M.config.autocomplete and vim.lsp.completion and vim.lsp.completion.enable then
    vim.lsp.completion.enable(true, client.id, bufnr, { autotrigger = M.config.autotrigger, convert = M.convert })
  end
end

local function capabilities()
  local ok, cmp = pcall(require, 'cmp_nvim_lsp') -- nvim-cmp's LSP source, when installed
  local found = ok and cmp.default_capabilities() or vim.lsp.protocol.make_client_capabilities()
  -- signatures beside the labels: nvim-cmp shows labelDetails, and so does M.convert
  return vim.tbl_deep_extend('force', found, {
    textDocument = { completion = { completionItem = { labelDetailsSupport = true } } },
  })
end

function M.client_config()
  local settings = { treecomplete = M.config.settings }
  return {
    name = 'treecomplete',
    cmd = M.command(),
    filetypes = M.config.filetypes,
    root_markers = M.config.root_markers,
    init_options = settings,
    settings = settings,
    capabilities = capabilities(),
    on_attach = on_attach,
  }
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local config = M.client_config()
  if vim.fn.has('nvim-0.11') == 1 then
    vim.lsp.config('treecomplete', config)
    vim.lsp.enable('treecomplete')
    return
  end
  local group = vim.api.nvim_create_augroup('treecomplete', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      local start = vim.fs.dirname(vim.api.nvim_buf_get_name(args.buf))
      local marker = vim.fs.find(config.root_markers, { path = start, upward = true })[1]
      local root = marker and vim.fs.dirname(marker) or start
      vim.lsp.start(vim.tbl_extend('force', config, { root_dir = root }), { bufnr = args.buf })
    end,
  })
end

return M
