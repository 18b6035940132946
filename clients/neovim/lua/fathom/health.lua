-- :checkhealth fathom: whether the daemon command runs and answers. Neovim 0.7 reports through
-- require('health'); later releases through vim.health.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local error = health.error or health.report_error
local info = health.info or health.report_info

function M.check()
  start('fathom')
  local fathom = require('fathom')
  local cmd = fathom.config.cmd
  if vim.fn.executable(cmd[1]) == 1 then
    ok('daemon command found: ' .. table.concat(cmd, ' '))
  else
    error(cmd[1] .. ' is not executable; set cmd in require("fathom").setup({ cmd = { ... } })')
    return
  end
  local result, err = fathom.request_sync('fathom/status', {})
  if result then
    ok(string.format('the daemon answers (%d open workspaces)', #result.workspaces))
    for _, workspace in ipairs(result.workspaces) do
      info(string.format('%s: %s, %d files', workspace.root, workspace.state, workspace.files or 0))
    end
  else
    error('the daemon did not answer: ' .. tostring(err))
  end
end

return M
