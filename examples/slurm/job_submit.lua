--[[
Jobsight job_submit filter for SLURM (job_submit/lua, Lua 5.1): the controller-side equivalent of
cli_filter.lua, for sites where every submission must pass (a cli_filter can be bypassed by the user).

For each batch job it asks Jobsight what the job really needs and adjusts the memory
(min_mem_per_node or min_mem_per_cpu, i.e. --mem / --mem-per-cpu), cpus_per_task, the GPUs
(tres_per_node for --gres, tres_per_job for --gpus) and time_limit under the platform team's
policy, and tells the user in one line (slurm.log_user) what changed and why.

It fails open: no curl, server down, a slow answer, or an answer it does not understand all leave
the job as submitted, and it always returns slurm.SUCCESS.

IMPORTANT: job_submit runs inside slurmctld while it holds the job write lock; every second spent
here stalls the whole controller. Keep `timeout` short (the default is 1 s, curl's --max-time), put
the Jobsight server close to the controller, and prefer cli_filter.lua where bypassing is acceptable.
Do not run both filters on one cluster: the job would be adjusted twice.
When the server answers hold=1 (a repeat offender's submission, alerts.actions.holdRepeatOffenders)
the job is queued held (priority 0) and the user told why; `scontrol release <id>` lets it run.

Install: copy next to slurm.conf as job_submit.lua and set JobSubmitPlugins=lua.
Configure in /etc/slurm/jobsight.conf (key = value lines) or slurmctld's environment:
  url = https://jobsight.example.org    (JOBSIGHT_URL)
  timeout = 1                           (JOBSIGHT_TIMEOUT, seconds, the whole request)
  connect_timeout = 0.5                 (JOBSIGHT_CONNECT_TIMEOUT)
  token_file = /etc/slurm/jobsight.token (JOBSIGHT_TOKEN_FILE, readable by SlurmUser only)
  cluster = hpc1                        (JOBSIGHT_CLUSTER)
  curl = curl                           (JOBSIGHT_CURL)
  cacert = /etc/slurm/jobsight-ca.pem   (JOBSIGHT_CACERT, for a server certificate of a private CA)
  types = batch                         (batch, interactive: which jobs to adjust)
]]

local HEADER = "jobsight-advice 1"

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
    url = "http://127.0.0.1:8080", timeout = "1", connect_timeout = "0.5",
    token_file = "/etc/slurm/jobsight.token", curl = "curl", types = "batch",
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
  if not string.match(conf.timeout, "^%d+%.?%d*$") then conf.timeout = "1" end
  if not string.match(conf.connect_timeout, "^%d+%.?%d*$") then conf.connect_timeout = "0.5" end
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
  if slurm.log_info then slurm.log_info("jobsight: %s; job submitted unchanged", message) end
end

local function explain(answer, advice)
  if answer == nil or answer == "" then return "no answer from the server" end
  if not advice then return "unreadable answer" end
  if advice.status == "error" then return "server error " .. tostring(advice.reason) end
  return nil
end

local function tell(message)
  if slurm.log_user then slurm.log_user("%s", message) end
  if slurm.log_info then slurm.log_info("jobsight: %s", message) end
end

-- job_desc holds numbers, with NO_VAL sentinels for what the user did not set.
local function number(v, sentinel)
  if type(v) ~= "number" or v == sentinel or v <= 0 then return nil end
  return v
end

local function wanted(conf, job_desc)
  local kind = job_desc.script and "batch" or "interactive"
  for name in string.gmatch(conf.types, "[^,%s]+") do
    if name == kind then return true end
  end
  return false
end

-- The same option table cli_filter sends, built from the job descriptor.
local function options_of(job_desc)
  local o = {}
  local function put(key, v)
    if v ~= nil and v ~= "" then o[key] = tostring(v) end
  end
  put("mem", number(job_desc.min_mem_per_node, slurm.NO_VAL64))
  put("mem-per-cpu", number(job_desc.min_mem_per_cpu, slurm.NO_VAL64))
  put("cpus-per-task", number(job_desc.cpus_per_task, slurm.NO_VAL16))
  put("ntasks", number(job_desc.num_tasks, slurm.NO_VAL))
  put("nodes", number(job_desc.min_nodes, slurm.NO_VAL))
  put("time", number(job_desc.time_limit, slurm.NO_VAL))
  put("gres", job_desc.tres_per_node)
  put("gpus", job_desc.tres_per_job)
  put("partition", job_desc.partition)
  put("account", job_desc.account)
  put("qos", job_desc.qos)
  put("job-name", job_desc.name)
  return o
end

local function apply(job_desc, set)
  for key, value in pairs(set) do
    if key == "mem" then
      job_desc.min_mem_per_node = tonumber(value)
    elseif key == "mem-per-cpu" then
      job_desc.min_mem_per_cpu = tonumber(value)
    elseif key == "cpus-per-task" then
      local cpus = tonumber(value)
      job_desc.cpus_per_task = cpus
      -- sbatch computed min_cpus from the old value; keep the two consistent.
      job_desc.min_cpus = cpus * (number(job_desc.num_tasks, slurm.NO_VAL) or 1)
    elseif key == "time" then
      job_desc.time_limit = tonumber(value)
    elseif key == "gres" then
      -- The "gres" field takes the user's form and adds the TRES prefix itself.
      job_desc.gres = value
    elseif key == "gpus" then
      local before = job_desc.tres_per_job or ""
      local prefix = string.match(before, "^(gres[:/])") or "gres/"
      job_desc.tres_per_job = prefix .. "gpu:" .. value
    end
  end
end

local function adjust(job_desc, submit_uid)
  local conf = read_config()
  if not wanted(conf, job_desc) then return end
  local curl = find_curl(conf.curl)
  if not curl then return note("curl not found") end
  local request = {
    source = "job_submit",
    user = job_desc.user_name or "",
    uid = tostring(submit_uid),
    options = options_of(job_desc),
  }
  if conf.cluster then request.cluster = conf.cluster end
  local answer = post(conf, curl, json_object(request))
  local advice = parse_advice(answer)
  local problem = explain(answer, advice)
  -- A hold stands even when the rest of the advice failed open.
  if advice and advice.hold == "1" then
    job_desc.priority = 0
    tell(advice["hold.message"] or "jobsight: submitted held for confirmation")
  end
  if problem then return note(problem) end
  if advice.status ~= "changed" or advice.count == 0 then return end
  -- GPUs per node are sent as "gres"; a --gpus-per-node answer cannot be set back here.
  if advice.set["gpus-per-node"] then return end
  apply(job_desc, advice.set)
  if advice.message then tell(advice.message) end
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  local ok, err = pcall(adjust, job_desc, submit_uid)
  if not ok and slurm.log_error then slurm.log_error("jobsight: %s", tostring(err)) end
  return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end
