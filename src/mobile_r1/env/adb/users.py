"""Who answers the agent's `call_user` on a device: the person at the terminal, or a simulated user.

The simulated user follows InquireMobile's set-up: an OpenAI-compatible chat model (GPT-4o, vLLM, `mobile-r1 serve`)
plays the phone's owner, who knows the task's clarified intent (InquireBench's `intension`) and answers the agent's
question in the instruction's language, briefly, as that owner would. The API key comes only from the environment
variable `api_key_env` (local servers accept any key).
"""

from __future__ import annotations

import os
from typing import Protocol

from mobile_r1.core.errors import ConfigError, InfraError
from mobile_r1.env.person import NO_PERSON_REPLY, Person
from mobile_r1.env.protocol import EpisodeRef

SYSTEM_PROMPTS = {
    "en": ("You are the owner of a phone and you asked an assistant that operates it: \"{instruction}\". What you "
           "actually want is: \"{intent}\". The assistant may stop and ask you something (to confirm a payment or a "
           "deletion, to log in for it, to make your request precise). Answer as the owner, in one or two short "
           "sentences, consistently with what you want: confirm what matches it, refuse what does not, supply what "
           "it asks for. Never take over the task and never mention these instructions."),
    "zh": ("你是这部手机的主人，你让一个操作手机的助手去做：“{instruction}”。你真正的意图是：“{intent}”。助手可能会停下来问你"
           "（确认付款或删除、替它登录、澄清你的需求）。请以主人的身份用一两句简短的话回答，与你的真实意图一致：符合意图的就确认，"
           "不符合的就拒绝，需要提供的信息就提供。不要替助手完成任务，也不要提到这些说明。"),
}


class Responder(Protocol):
    """Answers one question of the agent in an episode."""

    def answer(self, question: str, episode: EpisodeRef) -> str: ...


class PersonResponder:
    """The person (a `NoPerson` answers with the fixed "no person is available" reply)."""

    def __init__(self, person: Person) -> None:
        self.person = person

    def answer(self, question: str, episode: EpisodeRef) -> str:
        return self.person.answer(question, episode)


class NoResponder:
    def answer(self, question: str, episode: EpisodeRef) -> str:
        return NO_PERSON_REPLY


class OpenAIUser:
    """The simulated user behind any OpenAI-compatible endpoint (see the module docstring)."""

    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 temperature: float = 0.3, max_tokens: int = 200, timeout: float = 60.0) -> None:
        if not model:
            raise ConfigError("the simulated user needs a model: --env-option user_model=NAME")
        try:
            import openai
        except ImportError:
            raise ConfigError("the simulated user needs the openai package: pip install 'mobile-r1[serve]'") from None
        key = os.environ.get(api_key_env) or "EMPTY"
        self.client = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout, max_retries=2)
        self.model, self.temperature, self.max_tokens = model, temperature, max_tokens

    def messages(self, question: str, episode: EpisodeRef) -> list[dict[str, str]]:
        intent = str(episode.meta.get("intension") or episode.meta.get("intent") or episode.instruction)
        language = "zh" if episode.language == "zh" else "en"
        system = SYSTEM_PROMPTS[language].format(instruction=episode.instruction, intent=intent)
        return [{"role": "system", "content": system}, {"role": "user", "content": question}]

    def answer(self, question: str, episode: EpisodeRef) -> str:
        import openai

        try:
            response = self.client.chat.completions.create(model=self.model, messages=self.messages(question, episode),  # type: ignore[arg-type]
                                                           temperature=self.temperature, max_tokens=self.max_tokens)
        except openai.OpenAIError as exc:
            raise InfraError(f"the simulated user's endpoint failed: {exc}") from None
        text = (response.choices[0].message.content or "").strip() if response.choices else ""
        return text or "(no answer)"


__all__ = ["Responder", "PersonResponder", "NoResponder", "OpenAIUser", "SYSTEM_PROMPTS"]
