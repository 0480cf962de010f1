-- :checkhealth treecomplete
local M = {}

function M.check()
  local health = vim.health
  health.start('treecomplete')
  if vim.fn.has('nvim-0.9') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.9 or newer is needed')
  end
  local ok, treecomplete = pcall(require, 'treecomplete')
  if not ok then
    health.error('the plugin does not load: ' .. tostring(treecomplete))
    return
  end
  local cmd = treecomplete.command()
  if vim.fn.executable(cmd[1]) ~= 1 then
    health.error(cmd[1] .. ' not found', {
      'pip install treecomplete (README.md), or set cmd / python in require("treecomplete").setup{}',
    })
    return
  end
  local probe = vim.list_slice(cmd, 1, #cmd - 1) -- the command without --stdio
  table.insert(probe, '--version')
  local version = vim.fn.system(probe)
  if vim.v.shell_error == 0 then
    health.ok('server: ' .. vim.trim(version) .. ' (' .. table.concat(cmd, ' ') .. ')')
  else
    health.error('the server does not start: ' .. vim.trim(version))
  end
  local clients = (vim.lsp.get_clients or vim.lsp.get_active_clients)({ name = 'treecomplete' })
  if #clients > 0 then
    health.ok(#clients .. ' client(s) running')
  else
    health.info('no client running (open a Python or JavaScript file)')
  end
  if pcall(require, 'cmp_nvim_lsp') then
    health.info('nvim-cmp LSP source found: completions also come through nvim-cmp')
  end
end

return M
