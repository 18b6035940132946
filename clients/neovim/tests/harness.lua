-- What the headless tests of fathom.nvim share (minimal_init.lua, never_blocks.lua): one line per
-- check on stdout, the quickfix list as sorted "path:line:column", and the exit (0 when every
-- check held, after the LSP clients are stopped). Loaded with dofile by each test.
local M = { failures = 0 }

function M.check(name, ok, detail)
  io.stdout:write((ok and 'ok ' or 'FAIL ') .. name .. (ok and '' or (': ' .. vim.inspect(detail))) .. '\n')
  if not ok then
    M.failures = M.failures + 1
  end
end

function M.quickfix()
  local out = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(out, string.format('%s:%d:%d', vim.fn.fnamemodify(vim.fn.bufname(item.bufnr), ':.'), item.lnum, item.col))
  end
  table.sort(out)
  return out
end

function M.finish()
  for _, client in ipairs(vim.lsp.get_active_clients()) do
    client.stop()
  end
  vim.wait(200)
  if M.failures > 0 then
    vim.cmd('cquit 1')
  else
    vim.cmd('qa!')
  end
end

return M
