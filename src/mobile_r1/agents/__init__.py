"""Agents: observation + task + history -> model text + action (local transformers, OpenAI-compatible, human, random).

    from mobile_r1.agents import AgentRequest, make_agent
    agent = make_agent("openai:qwen2.5-vl-3b", base_url="http://127.0.0.1:8000/v1", dialect="inquire")
    out = agent.act(AgentRequest(instruction, observation, history))    # out.action is in screen pixels
"""

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest, ModelView
from mobile_r1.agents.registry import AGENTS, agent_names, make_agent, register_agent

__all__ = ["AGENTS", "Agent", "AgentOutput", "AgentRequest", "ModelView", "agent_names", "make_agent", "register_agent"]
