"""Reading a reply the way a careful person does: clauses, what each says, which tools write.

segment.py cuts a reply into clauses (code, quotations and quote lines set aside);
clauses.py classifies each clause and decides whether the reply claims completion;
tools.py types tool names (write or read, and the action class) from their verbs;
tables.py turns both into the input tables the SQL rules join (reply_readings,
tool_classes), computed once per distinct reply text and once per tool name.
"""
