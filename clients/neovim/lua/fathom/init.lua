-- fathom.nvim: Neovim as a client of the Fathom daemon. Starts (or reuses) one `vim.lsp` client
-- per workspace root, so Neovim's own LSP sync sends every open buffer to the daemon at keystroke
-- speed (didOpen/didChange): searches see unsaved text. Commands send Fathom's own requests over
-- that client and put results in the quickfix list. The plugin never writes a file.
-- Works on Neovim 0.7 (Debian's) and later: only vim.lsp.start_client, buf_attach_client and
-- client.request_sync are used.
local M = {}

-- Defaults; setup(opts) merges over them.
M.defaults = {
  -- How to run the daemon: Neovim speaks LSP to it over stdio. { 'fathom', 'attach' } shares
  -- the user's one daemon on its socket (started when none runs) instead of one per Neovim.
  cmd = { 'fathom', 'serve', '--stdio' },
  -- Extra environment for the daemon (e.g. { FATHOM_CACHE_DIR = '/tmp/fathom' }).
  cmd_env = nil,
  -- Files that mark a workspace root, searched upward from a buffer's file.
  root_markers = { '.git' },
  -- How long a command waits for an answer (a first index of a large tree takes longer: the
  -- command says so and can be run again).
  timeout_ms = 30000,
  -- At most this many results in the quickfix list.
  max_results = 2000,
  -- Open the quickfix window when a command found something.
  open_quickfix = true,
  -- vim.lsp client flags; debounce_text_changes is how long Neovim waits after a keystroke
  -- before it sends the change (searches see text that old).
  flags = { debounce_text_changes = 50 },
}

M.config = vim.deepcopy(M.defaults)

-- root -> client id
local clients = {}

-- Neovim 0.11 made a client's functions methods (client:request_sync(...)); 0.7 to 0.10 have
-- plain function fields (client.request_sync(...)).
local methods = vim.fn.has('nvim-0.11') == 1
local function client_call(client, name, ...)
  if methods then
    return client[name](client, ...)
  end
  return client[name](...)
end

local function notify(message, level)
  vim.notify('fathom: ' .. message, level or vim.log.levels.INFO)
end

--- The workspace root of a file: the nearest folder above it holding a root marker, else its folder.
function M.root_of(file)
  local folder = vim.fn.fnamemodify(file, ':p:h')
  for _, marker in ipairs(M.config.root_markers) do
    local found = vim.fn.finddir(marker, folder .. ';')
    if found == '' then
      found = vim.fn.findfile(marker, folder .. ';')
    end
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h:h'):gsub('/$', '')
    end
  end
  return folder
end

local function buffer_root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr or 0)
  if name == '' then
    return M.root_of(vim.fn.getcwd() .. '/.')
  end
  return M.root_of(name)
end

--- The client for a root, started on first use.
function M.client_for(root)
  local id = clients[root]
  if id then
    local client = vim.lsp.get_client_by_id(id)
    if client and not client_call(client, 'is_stopped') then
      return client
    end
  end
  id = vim.lsp.start_client({
    name = 'fathom',
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = root,
    flags = M.config.flags,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
  })
  if not id then
    notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
    return nil
  end
  clients[root] = id
  return vim.lsp.get_client_by_id(id)
end

--- Attaches a buffer (a file inside a root) to that root's client: from then on its text is synced.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
    return
  end
  local client = M.client_for(buffer_root(bufnr))
  if client then
    vim.lsp.buf_attach_client(bufnr, client.id)
  end
end

--- A synchronous Fathom request for the current buffer's workspace; (result, error message).
function M.request(method, params, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local root = buffer_root(bufnr)
  local client = M.client_for(root)
  if not client then
    return nil, 'no client'
  end
  params = vim.tbl_extend('keep', params or {}, { root = root })
  local response, err = client_call(client, 'request_sync', method, params, M.config.timeout_ms, bufnr)
  if not response then
    return nil, err or 'no answer (timeout: the first index of a large tree may still be running; try again)'
  end
  if response.err then
    return nil, response.err.message or vim.inspect(response.err)
  end
  return response.result, nil
end

--- A request whose failure is told to the user; the result, or nil.
local function ask(method, params)
  local result, err = M.request(method, params)
  if not result then
    notify(err, vim.log.levels.ERROR)
  end
  return result
end

local function to_quickfix(title, root, items)
  local list = {}
  for index, item in ipairs(items) do
    if index > M.config.max_results then
      break
    end
    table.insert(list, { filename = root .. '/' .. item.path, lnum = item.line, col = item.column, text = item.text })
  end
  vim.fn.setqflist({}, ' ', { title = title, items = list })
  if #list > 0 and M.config.open_quickfix then
    vim.cmd('copen')
  end
  return #list
end

--- :FathomGrep {regex}: the regex index (fresh to unsaved buffers) into the quickfix list.
function M.grep(pattern, options)
  local result = ask('fathom/grep', vim.tbl_extend('keep', options or {}, { pattern = pattern, maxResults = M.config.max_results }))
  if not result then
    return 0
  end
  local items = {}
  for _, match in ipairs(result.matches) do
    table.insert(items, { path = match.path, line = match.line, column = match.column, text = match.text })
  end
  local count = to_quickfix('FathomGrep ' .. pattern, result.root, items)
  if count == 0 then
    notify('no match for ' .. pattern)
  end
  return count
end

--- :CodeSearch {query}: words (ranked over whole functions and classes), an identifier (its
--- definitions, then where it is written), a regex or a fragment of code (fathom/codeSearch
--- picks by the query's shape). Each hit goes to the quickfix list at its best line, with the
--- chunk's line range in the text.
function M.code_search(query)
  local result = ask('fathom/codeSearch', { query = query, maxResults = M.config.max_results, maxInlineBytes = 0 })
  if not result then
    return 0
  end
  local items = {}
  for _, hit in ipairs(result.hits) do
    local text
    if hit.start == hit['end'] then
      text = hit.snippet
    else
      local lines = vim.split(hit.snippet, '\n', { plain = true })
      text = string.format('[%d-%d] %s', hit.start, hit['end'], vim.trim(lines[hit.line - hit.snippetStart + 1] or ''))
    end
    table.insert(items, { path = hit.path, line = hit.line, column = hit.column or 1, text = text })
  end
  local count = to_quickfix('CodeSearch ' .. query .. ' (' .. result.route .. ')', result.root, items)
  if count == 0 then
    notify('nothing found for ' .. query)
  end
  return count
end

--- :StructuralSearch {pattern}: code with $X / $$$X metavariables, in the current buffer's language.
function M.structural_search(pattern, language)
  language = language or vim.bo.filetype
  if language == '' then
    notify('no language: open a file of that language, or :StructuralSearch in one', vim.log.levels.ERROR)
    return 0
  end
  local result = ask('fathom/structuralSearch', { pattern = pattern, language = language, maxResults = M.config.max_results })
  if not result then
    return 0
  end
  local items = {}
  for _, match in ipairs(result.matches) do
    table.insert(items, { path = match.path, line = match.range.start.line, column = match.range.start.column, text = match.lineText })
  end
  local count = to_quickfix('StructuralSearch ' .. pattern, result.root, items)
  if count == 0 then
    notify('no match for ' .. pattern)
  end
  return count
end

local function cursor_params()
  local cursor = vim.api.nvim_win_get_cursor(0)
  local line = vim.api.nvim_get_current_line()
  -- Fathom's columns are 1-based UTF-16 units; Neovim's are 0-based bytes.
  local column = vim.str_utfindex(line, cursor[2]) + 1
  return { path = vim.api.nvim_buf_get_name(0), position = { line = cursor[1], column = column } }
end

--- :FathomRefs: every reference to the symbol under the cursor (the code graph), with how sure each is.
function M.references()
  local result = ask('fathom/references', cursor_params())
  if not result then
    return 0
  end
  local items = {}
  for _, reference in ipairs(result.references) do
    local sure = reference.confidence == 'exact' and '' or ' [' .. reference.confidence .. ']'
    table.insert(items, { path = reference.path, line = reference.range.start.line, column = reference.range.start.column, text = reference.text .. sure })
  end
  return to_quickfix('FathomRefs', result.root, items)
end

--- :FathomImpact [depth]: what depends on the definition under the cursor, nearest first.
function M.impact(depth)
  local result = ask('fathom/impact', vim.tbl_extend('force', cursor_params(), { depth = depth or 3 }))
  if not result then
    return 0
  end
  local items = {}
  for _, entry in ipairs(result.impacted) do
    local symbol = entry.symbol
    local where = symbol and symbol.selectionRange.start or (entry.sites[1] and entry.sites[1].range.start) or { line = 1, column = 1 }
    local name = symbol and table.concat(vim.list_extend(vim.deepcopy(symbol.container), { symbol.name }), '.') or '(top level)'
    table.insert(items, { path = entry.path, line = where.line, column = where.column, text = string.format('%d %s (%s, %d)', entry.distance, name, entry.confidence, #entry.sites) })
  end
  return to_quickfix('FathomImpact', result.root, items)
end

--- :FathomStatus: the workspace's file set and indexes, in a message.
function M.status()
  local result = ask('fathom/status', {})
  if not result then
    return nil
  end
  local lines = {}
  for _, workspace in ipairs(result.workspaces) do
    local indexes = {}
    for name, state in pairs(workspace.indexes or {}) do
      table.insert(indexes, name .. ' ' .. state)
    end
    table.sort(indexes)
    table.insert(lines, string.format('%s: %s, %d files, %s', workspace.root, workspace.state, workspace.files or 0, table.concat(indexes, ', ')))
  end
  notify(table.concat(lines, '\n'))
  return result
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts or {})
  local group = vim.api.nvim_create_augroup('fathom', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, { group = group, callback = function(args)
    M.attach(args.buf)
  end })
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) then
      M.attach(bufnr)
    end
  end
  local command = vim.api.nvim_create_user_command
  command('FathomGrep', function(args) M.grep(args.args) end, { nargs = 1, desc = 'Fathom: regex search into the quickfix list' })
  command('CodeSearch', function(args) M.code_search(args.args) end, { nargs = 1, desc = 'Fathom: search the code for words' })
  command('StructuralSearch', function(args) M.structural_search(args.args) end, { nargs = 1, desc = 'Fathom: structural search ($X metavariables)' })
  command('FathomRefs', function() M.references() end, { nargs = 0, desc = 'Fathom: references of the symbol under the cursor' })
  command('FathomImpact', function(args) M.impact(tonumber(args.args)) end, { nargs = '?', desc = 'Fathom: what depends on the symbol under the cursor' })
  command('FathomStatus', function() M.status() end, { nargs = 0, desc = 'Fathom: workspace status' })
end

return M
