"""The evaluation corpus: nine generated documents (five English, four Chinese,
in every supported format) and 32 questions, each with the passage that answers
it (document name plus a location key and value; ``None`` when the document
has one passage). :func:`write_corpus` builds the files; :func:`recall_at_k`
scores any search function: the share of questions whose known passage is
among the first ``k`` hits. Used by ``test_recall.py`` and the benchmark."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.documents import make_pdf


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    document: str
    key: str | None = None
    value: Any = None

    def answered_by(self, document: str, location: dict[str, Any]) -> bool:
        if document != self.document:
            return False
        return self.key is None or location.get(self.key) == self.value


HANDBOOK = """# Employee handbook

## Vacation policy

Full-time employees receive 25 days of paid vacation per calendar year. Unused vacation days can be carried over until March 31 of the following year. Requests longer than two weeks need approval from a department head.

## Remote work

Staff may work from home up to three days per week. A stipend of 400 euros covers a desk, chair and monitor for the home office. Core collaboration hours are 10:00 to 15:00 Central European Time.

## Expense reports

Receipts must be submitted through the Ledgerly portal within 30 days. Meals during business travel are reimbursed up to 45 euros per day. Alcohol is never reimbursed.

## Security badges

Lost badges must be reported to the front desk immediately; a replacement badge costs 15 euros. Visitors must wear a red lanyard and be escorted at all times.

## Onboarding

New hires meet their mentor on the first morning. Laptops are configured by the IT team before the start date, and the welcome lunch takes place on Friday of the first week.
"""

REPORT_PAGES = [
    ["Annual report 2024", "Northwind Robotics reported revenue of 82 million dollars,",
     "an increase of 17 percent over the previous year.",
     "Gross margin improved to 41 percent thanks to lower component costs."],
    ["Manufacturing", "The new assembly plant in Tacoma opened in June.",
     "It employs 230 technicians and produces 90 robotic arms per week.",
     "Solar panels on the roof supply a third of its electricity."],
    ["Risks", "The supply of lithium batteries depends on two vendors in Chile.",
     "A shortage of servo motors delayed shipments in the third quarter.",
     "Currency fluctuations affect sales in Japan and Korea."],
    ["Outlook", "Management expects revenue growth of 10 to 12 percent next year.",
     "A second plant in Monterrey is planned for 2026.",
     "Research spending will rise to 9 percent of sales."],
]  # fmt: skip

PRODUCT = [
    ("Overview", "Atlas is a six-axis collaborative robot arm designed for packaging lines and laboratories."),
    ("Specifications", "The arm lifts a payload of 12 kilograms with a reach of 1,300 millimetres. Repeatability is plus or minus 0.03 millimetres."),
    ("Safety", "Pressing the red emergency stop button cuts power to all joints within 80 milliseconds. Force sensors pause the arm when it touches a person."),
    ("Maintenance", "Lubricate the joints every 500 operating hours and replace the cable harness every two years."),
    ("Warranty", "Atlas carries a three-year warranty covering parts and labour; damage from water is excluded."),
]  # fmt: skip

SLIDES = [
    ("Vision", "Make robot arms as easy to program as spreadsheets", "Mention the customer survey from Rotterdam"),
    ("Hiring plan", "Hire 40 engineers in 2025, mostly in Lisbon and Austin", ""),
    ("Launch timeline", "Atlas Mini ships in September; beta testing starts in May", ""),
    ("Pricing", "Atlas Mini will cost 18,500 dollars; schools get a 30 percent education discount", ""),
]  # fmt: skip

TEA = """# 茶叶指南

## 绿茶

龙井是杭州最有名的绿茶，春分前采摘的明前茶价格最高。绿茶不经过发酵，保留了较多的茶多酚。

## 乌龙茶

乌龙茶属于半发酵茶，铁观音产自福建安溪，冲泡时香气像兰花。

## 普洱茶

普洱茶产自云南，生普经过多年存放后口感会变得醇厚，熟普采用渥堆发酵工艺。

## 冲泡方法

冲泡绿茶的水温以八十度为宜，过烫的开水会把嫩芽烫熟。乌龙茶适合用一百度的沸水冲泡。

## 储存

茶叶应密封保存在阴凉干燥处，远离异味，绿茶最好放入冰箱冷藏。
"""

TRANSIT_PAGES = [
    [
        "地铁",
        "本市地铁共有十二条线路，早高峰期间每两分钟一班。",
        "地铁票价按里程计算，起步价三元。",
    ],
    ["公交", "夜班公交从晚上十一点运行到凌晨五点。", "老年人凭卡免费乘坐公交车。"],
    ["共享单车", "共享单车每次骑行前三十分钟收费一元五角。", "停车必须在指定的电子围栏区域内。"],
    ["停车", "市中心停车场每小时收费十元。", "新能源汽车可享受两小时免费停车。"],
]

HANDBOOK_ZH = [
    ("考勤", "员工每天上午九点前打卡，迟到三次将扣除当月全勤奖。"),
    ("年假", "入职满一年的员工享有十天带薪年假，满十年增加到十五天。"),
    ("报销", "差旅费用须在出差结束后十五个工作日内提交报销申请，并附上发票原件。"),
    ("培训", "公司每季度组织一次安全培训，新员工必须参加消防演练。"),
]

MINUTES = (
    "2024年3月会议纪要\n\n"
    "一、产品发布：新款扫地机器人计划在五月上市，售价两千九百九十元。\n\n"
    "二、市场推广：在抖音和小红书投放广告，预算五十万元。\n\n"
    "三、客户服务：客服热线延长到晚上十点。\n"
)

QUESTIONS: tuple[Question, ...] = (
    Question("How many days of paid vacation do employees get?", "handbook.md", "heading", "Vacation policy"),
    Question("What is the home office stipend for remote work?", "handbook.md", "heading", "Remote work"),
    Question("How much is reimbursed for meals during travel?", "handbook.md", "heading", "Expense reports"),
    Question("What does a replacement badge cost?", "handbook.md", "heading", "Security badges"),
    Question("Who configures laptops for new hires?", "handbook.md", "heading", "Onboarding"),
    Question("What revenue did Northwind Robotics report?", "report.pdf", "page", 1),
    Question("Where is the new assembly plant?", "report.pdf", "page", 2),
    Question("Which vendors supply the lithium batteries?", "report.pdf", "page", 3),
    Question("What revenue growth does management expect next year?", "report.pdf", "page", 4),
    Question("What payload can the Atlas arm lift?", "atlas.docx", "heading", "Specifications"),
    Question("What happens when the emergency stop button is pressed?", "atlas.docx", "heading", "Safety"),
    Question("How often should the joints be lubricated?", "atlas.docx", "heading", "Maintenance"),
    Question("Does the warranty cover water damage?", "atlas.docx", "heading", "Warranty"),
    Question("How many engineers will be hired in 2025?", "roadmap.pptx", "slide", 2),
    Question("When does Atlas Mini ship?", "roadmap.pptx", "slide", 3),
    Question("What is the price of the Atlas Mini?", "roadmap.pptx", "slide", 4),
    Question("How much does the trade fair in Hannover cost?", "budget.xlsx", "sheet", "Travel"),
    Question("What do the oscilloscopes cost?", "budget.xlsx", "sheet", "Equipment"),
    Question("龙井茶产自哪里？", "茶叶指南.md", "heading", "绿茶"),
    Question("铁观音是什么茶？", "茶叶指南.md", "heading", "乌龙茶"),
    Question("熟普洱用什么工艺？", "茶叶指南.md", "heading", "普洱茶"),
    Question("冲泡绿茶的水温应该是多少度？", "茶叶指南.md", "heading", "冲泡方法"),
    Question("茶叶应该怎样储存？", "茶叶指南.md", "heading", "储存"),
    Question("地铁早高峰多久一班？", "城市交通.pdf", "page", 1),
    Question("夜班公交几点运行？", "城市交通.pdf", "page", 2),
    Question("共享单车怎么收费？", "城市交通.pdf", "page", 3),
    Question("新能源汽车停车免费多久？", "城市交通.pdf", "page", 4),
    Question("年假有多少天？", "员工手册.docx", "heading", "年假"),
    Question("差旅费用报销的期限是多久？", "员工手册.docx", "heading", "报销"),
    Question("迟到几次会扣全勤奖？", "员工手册.docx", "heading", "考勤"),
    Question("扫地机器人的售价是多少？", "会议纪要.txt"),
    Question("安全培训多久组织一次？", "员工手册.docx", "heading", "培训"),
)  # fmt: skip


def _docx(path: Path, sections: Sequence[tuple[str, str]], title: str) -> None:
    from docx import Document

    doc = Document()
    doc.add_heading(title, level=0)
    for heading, body in sections:
        doc.add_heading(heading, level=1)
        doc.add_paragraph(body)
    doc.save(str(path))


def _pptx(path: Path) -> None:
    from pptx import Presentation

    prs = Presentation()
    for title, body, notes in SLIDES:
        slide = prs.slides.add_slide(prs.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    prs.save(str(path))


def _xlsx(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    travel = wb.active
    assert travel is not None
    travel.title = "Travel"
    for row in (
        ["Trip", "Cost (EUR)"],
        ["Trade fair Hannover", 12000],
        ["Customer visits Texas", 8400],
    ):
        travel.append(row)
    equipment = wb.create_sheet("Equipment")
    for row in (["Item", "Cost (EUR)"], ["Oscilloscopes", 15600], ["3D printer", 4200]):
        equipment.append(row)
    wb.save(str(path))


def write_corpus(folder: Path) -> Path:
    """Write the nine documents into ``folder``; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "handbook.md").write_text(HANDBOOK, encoding="utf-8")
    (folder / "report.pdf").write_bytes(make_pdf(REPORT_PAGES))
    _docx(folder / "atlas.docx", PRODUCT, "Atlas product sheet")
    _pptx(folder / "roadmap.pptx")
    _xlsx(folder / "budget.xlsx")
    (folder / "茶叶指南.md").write_text(TEA, encoding="utf-8")
    (folder / "城市交通.pdf").write_bytes(make_pdf(TRANSIT_PAGES))
    _docx(folder / "员工手册.docx", HANDBOOK_ZH, "员工手册")
    (folder / "会议纪要.txt").write_text(MINUTES, encoding="utf-8")
    return folder


Search = Callable[[str], Awaitable[Sequence[tuple[str, dict[str, Any]]]]]


async def recall_at_k(
    search: Search, k: int = 5, questions: Sequence[Question] = QUESTIONS
) -> tuple[float, list[Question]]:
    """(recall@k, the questions missed). ``search(question)`` returns
    ``(document name, location)`` pairs, best first."""
    missed = []
    for question in questions:
        hits = list(await search(question.text))[:k]
        if not any(question.answered_by(name, location) for name, location in hits):
            missed.append(question)
    return 1 - len(missed) / len(questions), missed
