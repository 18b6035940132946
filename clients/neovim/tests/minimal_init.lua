-- Headless test of fathom.nvim against the real daemon (run by test/clients-neovim.test.ts):
--   FATHOM_TEST_ROOT=<fixture repo> FATHOM_TEST_NODE=<node> FATHOM_TEST_MAIN=<bin/fathom.js> \
--   nvim --headless -u clients/neovim/tests/minimal_init.lua
-- Loads only this plugin, runs the scenarios in order, prints one line per check and exits 0
-- when every check held (cquit 1 at the first that did not).
local here = debug.getinfo(1, 'S').source:sub(2):match('(.*)/tests/')
vim.opt.runtimepath:prepend(here)
vim.opt.swapfile = false
vim.cmd('filetype on')

local root = assert(os.getenv('FATHOM_TEST_ROOT'), 'FATHOM_TEST_ROOT')
local harness = dofile(here .. '/tests/harness.lua')
local check, quickfix = harness.check, harness.quickfix

-- Runs an Ex command and waits for the answer it asked for (commands return at once).
local function run(command)
  vim.cmd(command)
  local answered = require('fathom').wait(20000)
  check(command .. ' was answered', answered, require('fathom').statusline())
end

local ok, err = pcall(function()
  vim.cmd('cd ' .. root)
  local fathom = require('fathom')
  fathom.setup({
    cmd = { os.getenv('FATHOM_TEST_NODE'), os.getenv('FATHOM_TEST_MAIN'), 'serve', '--stdio' },
    cmd_env = { FATHOM_CACHE_DIR = os.getenv('FATHOM_CACHE_DIR'), FATHOM_LOG = 'warn' },
    open_quickfix = false,
    echo_progress = false,
  })
  vim.cmd('edit ' .. root .. '/src/app.ts')
  run('FathomGrep greet\\(')
  check(':FathomGrep fills the quickfix list', vim.deep_equal(quickfix(), { 'src/app.ts:2:24', 'src/util.ts:1:17' }), quickfix())
  check('the buffer is attached to the fathom client', #vim.lsp.buf_get_clients(0) == 1, vim.lsp.buf_get_clients(0))

  -- An unsaved edit: the next search sees it (Neovim's LSP sync sends didChange).
  vim.api.nvim_buf_set_lines(0, -1, -1, false, { 'export const typedNotSaved = greet("later");' })
  -- Neovim sends didChange after its debounce (150 ms by default in 0.7).
  for _ = 1, 15 do
    vim.cmd('FathomGrep typedNotSaved')
    fathom.wait(20000)
    if #vim.fn.getqflist() > 0 then
      break
    end
    vim.wait(200)
  end
  check('an unsaved buffer is searched', vim.deep_equal(quickfix(), { 'src/app.ts:4:14' }), quickfix())
  check('nothing was written', not vim.fn.readfile(root .. '/src/app.ts')[4], vim.fn.readfile(root .. '/src/app.ts'))

  run('CodeSearch hello world')
  check(':CodeSearch ranks words: the chunk, at its best line', vim.deep_equal(quickfix(), { 'src/util.ts:2:1' }), quickfix())
  run('CodeSearch greet')
  check(':CodeSearch of an identifier: its definition, then its uses (the unsaved one too)', vim.deep_equal(quickfix(), { 'src/app.ts:1:10', 'src/app.ts:2:24', 'src/app.ts:4:30', 'src/util.ts:1:1' }), quickfix())

  run('StructuralSearch greet($A)')
  check(':StructuralSearch matches calls, the unsaved one too', vim.deep_equal(quickfix(), { 'src/app.ts:2:24', 'src/app.ts:4:30' }), quickfix())

  vim.cmd('edit ' .. root .. '/src/util.ts')
  vim.api.nvim_win_set_cursor(0, { 1, 17 })
  run('FathomRefs')
  check(':FathomRefs lists the references of the symbol under the cursor', vim.deep_equal(quickfix(), { 'src/app.ts:1:10', 'src/app.ts:2:24', 'src/app.ts:4:30' }), quickfix())

  local status
  fathom.status(function(result) status = result end)
  fathom.wait(20000)
  check(':FathomStatus answers the workspace', status ~= nil and status.workspaces[1] ~= nil and status.workspaces[1].root == vim.loop.fs_realpath(root), status)
  check('the health check loads', type(require('fathom.health').check) == 'function')
end)
if not ok then
  check('no error', false, err)
end
harness.finish()
