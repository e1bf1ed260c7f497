--[[
Jobsight cli_filter for SLURM (cli_filter/lua, Lua 5.1).

Before sbatch talks to the controller, asks Jobsight what this job really needs and adjusts
--mem / --mem-per-cpu, --cpus-per-task, --gres / --gpus / --gpus-per-node and --time under the
platform team's policy (the server applies it), then tells the user in one line what changed.

It fails open: no curl, server down, a slow answer (curl --max-time), or an answer it does not
understand all leave the job exactly as submitted, and it always returns slurm.SUCCESS.

Install: copy next to slurm.conf as cli_filter.lua and set CliFilterPlugins=cli_filter/lua.
Configure in /etc/slurm/jobsight.conf (key = value lines) or the environment:
  url = https://jobsight.example.org    (JOBSIGHT_URL)
  timeout = 2                           (JOBSIGHT_TIMEOUT, seconds, the whole request)
  connect_timeout = 1                   (JOBSIGHT_CONNECT_TIMEOUT)
  token_file = /etc/slurm/jobsight.token (JOBSIGHT_TOKEN_FILE; or the token in JOBSIGHT_TOKEN)
  cluster = hpc1                        (JOBSIGHT_CLUSTER)
  curl = curl                           (JOBSIGHT_CURL)
  cacert = /etc/slurm/jobsight-ca.pem   (JOBSIGHT_CACERT, for a server certificate of a private CA)
  types = sbatch                        (which commands to adjust: sbatch, salloc, srun)
The cli_filter runs as the submitting user: the token must be one that may only ask for advice.
A user can skip the filter for one submission with JOBSIGHT_DISABLE=1.
When the server answers hold=1 (a repeat offender's submission, alerts.actions.holdRepeatOffenders)
the job is submitted held (--hold) and the user told why; `scontrol release <id>` lets it run.
]]

local OPTION_KEYS = {
  "mem", "mem-per-cpu", "cpus-per-task", "ntasks", "nodes", "time",
  "gres", "gpus", "gpus-per-node", "partition", "account", "qos", "job-name",
}
-- What the server may set, and the shape each value must have.
local SETTABLE = {
  ["mem"] = "^%d+$", ["mem-per-cpu"] = "^%d+$", ["cpus-per-task"] = "^%d+$", ["time"] = "^%d+$",
  ["gres"] = "^[%w%.:,_-]+$", ["gpus"] = "^[%w%.:_-]+$", ["gpus-per-node"] = "^[%w%.:_-]+$",
}
local HEADER = "jobsight-advice 1"

local function trim(s)
  return (string.gsub(s, "^%s*(.-)%s*$", "%1"))
end

local function read_config()
  local conf = {
    url = "http://127.0.0.1:8080", timeout = "2", connect_timeout = "1",
    token_file = "/etc/slurm/jobsight.token", curl = "curl", types = "sbatch",
  }
  local f = io.open(os.getenv("JOBSIGHT_CONFIG") or "/etc/slurm/jobsight.conf", "r")
  if f then
    for line in f:lines() do
      local k, v = string.match(line, "^%s*([%w_]+)%s*=%s*(.-)%s*$")
      if k then conf[k] = v end
    end
    f:close()
  end
  local env = {
    url = "JOBSIGHT_URL", timeout = "JOBSIGHT_TIMEOUT", connect_timeout = "JOBSIGHT_CONNECT_TIMEOUT",
    token = "JOBSIGHT_TOKEN", token_file = "JOBSIGHT_TOKEN_FILE", cluster = "JOBSIGHT_CLUSTER",
    curl = "JOBSIGHT_CURL", types = "JOBSIGHT_TYPES", cacert = "JOBSIGHT_CACERT",
  }
  for k, name in pairs(env) do
    local v = os.getenv(name)
    if v and v ~= "" then conf[k] = v end
  end
  if not string.match(conf.timeout, "^%d+%.?%d*$") then conf.timeout = "2" end
  if not string.match(conf.connect_timeout, "^%d+%.?%d*$") then conf.connect_timeout = "1" end
  return conf
end

local function readable(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

-- Like `which curl`, without starting a process: look along PATH.
local function find_curl(curl)
  if string.find(curl, "/", 1, true) then return readable(curl) and curl or nil end
  for dir in string.gmatch(os.getenv("PATH") or "/usr/bin:/bin", "[^:]+") do
    if readable(dir .. "/" .. curl) then return dir .. "/" .. curl end
  end
  return nil
end

local function shell_quote(s)
  return "'" .. string.gsub(s, "'", "'\\''") .. "'"
end

local function json_string(s)
  local escaped = string.gsub(tostring(s), '[%c"\\]', function(c)
    if c == '"' then return '\\"' end
    if c == "\\" then return "\\\\" end
    if c == "\n" then return "\\n" end
    if c == "\t" then return "\\t" end
    return string.format("\\u%04x", string.byte(c))
  end)
  return '"' .. escaped .. '"'
end

local function json_object(fields)
  local parts = {}
  for k, v in pairs(fields) do
    if type(v) == "table" then
      parts[#parts + 1] = json_string(k) .. ":" .. json_object(v)
    else
      parts[#parts + 1] = json_string(k) .. ":" .. json_string(v)
    end
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

local function write_file(path, text)
  local f = io.open(path, "w")
  if not f then return false end
  f:write(text)
  f:close()
  return true
end

local function token_of(conf)
  if conf.token then return conf.token end
  local f = conf.token_file and io.open(conf.token_file, "r")
  if not f then return nil end
  local token = trim(f:read("*a") or "")
  f:close()
  if token == "" then return nil end
  return token
end

-- POST the body with curl. The body and the token go through files made by os.tmpname (mode
-- 0600), never on the command line, where `ps` would show them.
local function post(conf, curl, body)
  local body_file = os.tmpname()
  local files = { body_file }
  if not write_file(body_file, body) then return nil end
  local args = {
    shell_quote(curl), "-sS", "--max-time", conf.timeout, "--connect-timeout", conf.connect_timeout,
    "-H", shell_quote("Content-Type: application/json"), "--data-binary", shell_quote("@" .. body_file),
  }
  if conf.cacert then
    args[#args + 1] = "--cacert"
    args[#args + 1] = shell_quote(conf.cacert)
  end
  local token = token_of(conf)
  if token and string.match(token, "^[%w%._~+/=-]+$") then
    local config_file = os.tmpname()
    files[#files + 1] = config_file
    if write_file(config_file, 'header = "Authorization: Bearer ' .. token .. '"\n') then
      args[#args + 1] = "-K"
      args[#args + 1] = shell_quote(config_file)
    end
  end
  args[#args + 1] = shell_quote(string.gsub(conf.url, "/+$", "") .. "/v1/schedulers/slurm/advice")
  local pipe = io.popen(table.concat(args, " ") .. " 2>/dev/null", "r")
  local answer = pipe and pipe:read("*a")
  if pipe then pipe:close() end
  for _, f in ipairs(files) do os.remove(f) end
  return answer
end

-- The answer is `key=value` lines after the header; anything else is ignored whole.
local function parse_advice(text)
  if type(text) ~= "string" then return nil end
  local lines = {}
  for line in string.gmatch(text, "[^\n]+") do lines[#lines + 1] = line end
  if lines[1] ~= HEADER then return nil end
  local advice = { set = {}, count = 0 }
  for i = 2, #lines do
    local k, v = string.match(lines[i], "^([%w%._-]+)=(.*)$")
    if not k then return nil end
    local option = string.match(k, "^set%.(.+)$")
    if option then
      if not SETTABLE[option] or not string.match(v, SETTABLE[option]) then return nil end
      advice.set[option] = v
      advice.count = advice.count + 1
    else
      advice[k] = v
    end
  end
  return advice
end

-- Why a job went through unchanged, for whoever debugs the filter (not for the user).
local function note(message)
  if slurm.log_verbose then slurm.log_verbose("jobsight: %s; job submitted unchanged", message) end
end

local function explain(answer, advice)
  if answer == nil or answer == "" then return "no answer from the server" end
  if not advice then return "unreadable answer" end
  if advice.status == "error" then return "server error " .. tostring(advice.reason) end
  return nil
end

-- cli_filter/lua has no log_user (job_submit/lua's); log_info reaches the user's terminal, printed
-- by sbatch 22.05 as "sbatch: lua: <message>".
local function tell(message)
  local log = slurm.log_user or slurm.log_info
  if log then log("%s", message) end
end

local function allowed_type(conf, options)
  local t = options["type"]
  if not t then return true end
  for name in string.gmatch(conf.types, "[^,%s]+") do
    if name == t then return true end
  end
  return false
end

local function adjust(options, pack_offset)
  if pack_offset ~= 0 and pack_offset ~= nil then return end
  if os.getenv("JOBSIGHT_DISABLE") == "1" then return end
  local conf = read_config()
  if not allowed_type(conf, options) then return end
  local curl = find_curl(conf.curl)
  if not curl then return note("curl not found") end

  local values = {}
  for _, key in ipairs(OPTION_KEYS) do
    local v = options[key]
    if v ~= nil and v ~= "" then values[key] = tostring(v) end
  end
  local ok, argv = pcall(function() return options.argv end)
  if ok and type(argv) == "table" and argv[1] then values["script"] = argv[1] end
  local request = { source = "cli_filter", user = os.getenv("USER") or os.getenv("LOGNAME") or "", options = values }
  local uid = options["uid"]
  if uid then request.uid = tostring(uid) end
  if conf.cluster then request.cluster = conf.cluster end

  local answer = post(conf, curl, json_object(request))
  local advice = parse_advice(answer)
  local problem = explain(answer, advice)
  -- A hold stands even when the rest of the advice failed open.
  if advice and advice.hold == "1" then
    options["hold"] = "set"
    tell(advice["hold.message"] or "jobsight: submitted held for confirmation")
  end
  if problem then return note(problem) end
  if advice.status ~= "changed" or advice.count == 0 then return end
  for key, value in pairs(advice.set) do options[key] = value end
  if advice.message then tell(advice.message) end
end

function slurm_cli_setup_defaults(options, early_pass)
  return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, pack_offset)
  local ok, err = pcall(adjust, options, pack_offset)
  if not ok and slurm.log_verbose then slurm.log_verbose("jobsight: %s", tostring(err)) end
  return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, job_id, step_id)
  return slurm.SUCCESS
end
