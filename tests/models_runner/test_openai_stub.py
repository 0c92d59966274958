import openai

from tests.openai_stub import OpenAIStub


def test_stub_speaks_the_openai_protocol_to_the_real_client():
    with OpenAIStub(lambda body: "echo: " + body["messages"][-1]["content"]) as stub:
        client = openai.OpenAI(base_url=stub.base_url, api_key="k", max_retries=0)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "echo: hi"
    assert stub.requests[0]["model"] == "m"
    assert stub.requests[0]["headers"]["authorization"] == "Bearer k"
